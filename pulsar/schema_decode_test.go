package pulsar

import (
	"errors"
	"testing"
)

// The writers' schemas a consumer keeps are bounded: past
// maxConsumerSchemas the oldest is fetched again when met; partitions of a
// topic share their schemas.
func TestConsumerSchemaCacheIsBounded(t *testing.T) {
	cs, err := newConsumerSchemas(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fetched := map[string]int{}
	cs.fetch = func(topic string, version []byte) (Schema, error) {
		fetched[string(version)]++
		return NewStringSchema(nil), nil
	}
	version := func(i int) []byte { return []byte{byte(i >> 8), byte(i)} }
	topic := "persistent://public/default/t"
	for i := range maxConsumerSchemas + 10 {
		if _, err := cs.writer(topic+"-partition-"+string(rune('0'+i%3)), version(i)); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.writer(topic+"-partition-9", version(i)); err != nil { // cached for the topic
			t.Fatal(err)
		}
	}
	if len(cs.byKey) != maxConsumerSchemas || len(cs.order) != maxConsumerSchemas {
		t.Fatalf("%d schemas kept, want %d", len(cs.byKey), maxConsumerSchemas)
	}
	for i := range maxConsumerSchemas + 10 {
		if fetched[string(version(i))] != 1 {
			t.Fatalf("version %d fetched %d times", i, fetched[string(version(i))])
		}
	}
	if _, err := cs.writer(topic, version(0)); err != nil || fetched[string(version(0))] != 2 {
		t.Fatalf("evicted version: fetched %d times, %v", fetched[string(version(0))], err)
	}
}

// panicSchema is an application schema whose Decode panics.
type panicSchema struct{ StringSchema }

func (panicSchema) Decode([]byte, any) error { panic("application bug") }

// A codec that panics (an application's Schema) gives GetSchemaValue a
// *SchemaError instead of crashing the consumer's caller.
func TestGetSchemaValueRecoversACodecPanic(t *testing.T) {
	cs, err := newConsumerSchemas(nil, &panicSchema{*NewStringSchema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var s string
	var se *SchemaError
	if err := cs.decode("persistent://public/default/t", nil, []byte("x"), &s); !errors.As(err, &se) || se.Type != STRING {
		t.Fatalf("%v, want a *SchemaError", err)
	}
}
