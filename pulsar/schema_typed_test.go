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
