package pulsar

import (
	"errors"
	"testing"

	"github.com/pulsargo/sdk/brokerstub"
)

// A payload that does not decode with its schema, a message without any
// schema and a target of the wrong type give a *SchemaError from
// GetSchemaValue, never a panic.
func TestGetSchemaValueOfBadPayloads(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, Schema: NewAvroSchema(testAvroDef, nil), DisableBatching: true})
	bad := [][]byte{
		{}, // truncated record
		{0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, // a string of 2^62 bytes
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, // varint without end
	}
	for _, payload := range bad {
		// A raw payload goes out with the producer's schema version.
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: payload}); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := NewAvroSchema(testAvroDef, nil).Encode(testExample{ID: 9, Name: "ok"})
	if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: good}); err != nil {
		t.Fatal(err)
	}
	c := v.subscribe(ConsumerOptions{Topic: topic, Schema: NewAvroSchema(testAvroDef, nil)})
	for i := range bad {
		var out testExample
		err := csRecv(t, c).GetSchemaValue(&out)
		var se *SchemaError
		if !errors.As(err, &se) || se.Op != "decode" || se.Type != AVRO {
			t.Errorf("bad payload %d: %v, want a decode *SchemaError", i, err)
		}
	}
	m := csRecv(t, c)
	var wrong int
	var se *SchemaError
	if err := m.GetSchemaValue(&wrong); !errors.As(err, &se) {
		t.Errorf("wrong target: %v, want a *SchemaError", err)
	}
	if err := m.GetSchemaValue(nil); !errors.As(err, &se) {
		t.Errorf("nil target: %v, want a *SchemaError", err)
	}
	var out testExample
	if err := m.GetSchemaValue(&out); err != nil || out.ID != 9 {
		t.Errorf("good payload: %+v, %v", out, err)
	}
}

func TestGetSchemaValueWithoutAnySchema(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	// Subscribed while the topic is idle, the consumer registers its schema.
	typed := v.subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s2", Schema: NewStringSchema(nil)})
	plain := v.subscribe(ConsumerOptions{Topic: topic})
	p := testProducer(t, v.c, ProducerOptions{Topic: topic})
	if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("raw")}); err != nil {
		t.Fatal(err)
	}
	var s string
	var se *SchemaError
	if err := csRecv(t, plain).GetSchemaValue(&s); !errors.As(err, &se) {
		t.Fatalf("%v, want a *SchemaError", err)
	}
	// With a consumer schema, a message without version decodes with it.
	if err := csRecv(t, typed).GetSchemaValue(&s); err != nil || s != "raw" {
		t.Fatalf("%q, %v", s, err)
	}
}

// A schema version the broker does not have gives a fetch *SchemaError
// carrying the broker's error.
func TestGetSchemaValueOfAnUnknownVersion(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	p := testProducer(t, v.c, ProducerOptions{Topic: topic, Schema: NewStringSchema(nil)})
	if _, err := p.Send(csCtx(t), &ProducerMessage{Value: "x"}); err != nil {
		t.Fatal(err)
	}
	c := v.subscribe(ConsumerOptions{Topic: topic, Schema: NewStringSchema(nil)})
	m := csRecv(t, c)
	v.b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		return brokerstub.Action{Fail: ev.Type == brokerstub.CmdGetSchema, FailWith: "TopicNotFound"}
	})
	var s string
	var se *SchemaError
	var sv *ServerError
	if err := m.GetSchemaValue(&s); !errors.As(err, &se) || se.Op != "fetch" || !errors.As(err, &sv) {
		t.Fatalf("%v, want a fetch *SchemaError with the broker's error", err)
	}
}

func TestProducerRefusesBadValues(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	plain := testProducer(t, v.c, ProducerOptions{Topic: topic})
	var se *SchemaError
	if _, err := plain.Send(csCtx(t), &ProducerMessage{Value: "no schema"}); !errors.As(err, &se) {
		t.Errorf("Value without schema: %v", err)
	}
	typed := testProducer(t, v.c, ProducerOptions{Topic: topic, Schema: NewStringSchema(nil)})
	if _, err := typed.Send(csCtx(t), &ProducerMessage{Value: 42}); !errors.As(err, &se) || se.Op != "encode" {
		t.Errorf("Value of the wrong type: %v", err)
	}
	if _, err := typed.Send(csCtx(t), &ProducerMessage{Value: "v", Payload: []byte("p")}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Value and Payload: %v", err)
	}
	done := make(chan error, 1)
	typed.SendAsync(csCtx(t), &ProducerMessage{Value: 42}, func(_ MessageID, _ *ProducerMessage, err error) { done <- err })
	if err := <-done; !errors.As(err, &se) {
		t.Errorf("SendAsync of a wrong value: %v", err)
	}
	_, err := v.c.CreateProducer(ProducerOptions{Topic: topic, Schema: NewAvroSchema(`{"type":"nope"}`, nil)})
	if !errors.As(err, &se) || se.Op != "parse" {
		t.Errorf("producer with a bad definition: %v", err)
	}
	_, err = v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", Schema: NewJSONSchema(`{"type":"nope"}`, nil)})
	if !errors.As(err, &se) {
		t.Errorf("consumer with a bad definition: %v", err)
	}
}
