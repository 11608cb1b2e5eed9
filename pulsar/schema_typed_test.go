package pulsar

import (
	"errors"
	"testing"
)

func TestTypedProducerAndConsumer(t *testing.T) {
	v := newCSEnv(t)
	topic := csTopic()
	if _, err := NewTypedProducer[testExample](v.c, ProducerOptions{Topic: topic}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("typed producer without schema: %v", err)
	}
	c, err := NewTypedConsumer[testExample](v.c, ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition: SubscriptionPositionEarliest, Schema: NewAvroSchema(testAvroDef, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := NewTypedProducer[testExample](v.c, ProducerOptions{Topic: topic, Schema: NewAvroSchema(testAvroDef, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.SendValue(csCtx(t), testExample{ID: 1, Name: "one"}, &ProducerMessage{Key: "k", Payload: []byte("ignored")}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte{0xff}}); err != nil { // not a value of the schema
		t.Fatal(err)
	}
	got, m, err := c.ReceiveValue(csCtx(t))
	if err != nil || got != (testExample{ID: 1, Name: "one"}) || m.Key() != "k" {
		t.Fatalf("%+v, %v", got, err)
	}
	got, m, err = c.ReceiveValue(csCtx(t))
	var se *SchemaError
	if !errors.As(err, &se) || m == nil || got != (testExample{}) {
		t.Fatalf("bad payload: %+v, %v, %v", got, m, err)
	}
	if err := c.Ack(m); err != nil {
		t.Fatal(err)
	}
}

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
