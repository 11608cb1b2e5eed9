package pulsar

import (
	"errors"
	"testing"
)

// emptyUnionDefault is the first document the Avro parser's fuzzer found
// to panic it (a default for a field of the empty union).
const emptyUnionDefault = `{"type":"record","name":"A","fields":[{"name":"A","type":[],"default":{}}]}`

// A schema that does not parse is an error on the producer's side.
func TestNewAvroSchemaOfUnparsableDefinition(t *testing.T) {
	var se *SchemaError
	if _, err := NewAvroSchemaWithValidation(emptyUnionDefault, nil); !errors.As(err, &se) || se.Op != "parse" {
		t.Fatalf("%v, want a parse *SchemaError", err)
	}
	if _, err := NewAvroSchema(emptyUnionDefault, nil).Encode(map[string]any{}); !errors.As(err, &se) {
		t.Fatalf("Encode with a schema that did not parse: %v, want a *SchemaError", err)
	}
}

// The writer's schema of a message comes from the broker (GET_SCHEMA):
// one that does not parse gives GetSchemaValue a parse *SchemaError, and
// the consumer goes on receiving.
func TestGetSchemaValueOfAWriterSchemaThatDoesNotParse(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	valid, err := NewAvroSchemaWithValidation(`{"type":"record","name":"A","fields":[]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	// An application's schema whose SchemaInfo is a definition pulsargo
	// cannot parse: the broker stores it as the topic's first version.
	stored := &AvroSchema{Codec: valid.Codec, SchemaInfo: SchemaInfo{Name: "A", Type: AVRO, Schema: emptyUnionDefault}}
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, Schema: stored, DisableBatching: true})
	for _, payload := range []string{"", "x"} {
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(payload)}); err != nil {
			t.Fatal(err)
		}
	}
	c := v.subscribe(ConsumerOptions{Topic: topic})
	for i := range 2 {
		m := csRecv(t, c)
		if len(m.SchemaVersion()) == 0 {
			t.Fatal("the message has no schema version: GET_SCHEMA is not exercised")
		}
		var out map[string]any
		var se *SchemaError
		if err := m.GetSchemaValue(&out); !errors.As(err, &se) || se.Op != "parse" || se.Type != AVRO {
			t.Fatalf("message %d: %v, want a parse *SchemaError of AVRO", i, err)
		}
	}
}
