package pulsar

import (
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// wantSchema is the protocol Schema the official client sends.
func wantSchema(name string, typ proto.Schema_Type, data string, props ...string) *proto.Schema {
	s := &proto.Schema{Name: gproto.String(name), Type: typ.Enum(), SchemaData: []byte(data)}
	for i := 0; i+1 < len(props); i += 2 {
		s.Properties = append(s.Properties, &proto.KeyValue{Key: gproto.String(props[i]), Value: gproto.String(props[i+1])})
	}
	return s
}

// PRODUCER and SUBSCRIBE carry the schema as the official client sends it:
// its name, type number, the canonical Avro JSON, the properties.
func TestSchemaInProducerSubscribeAndReader(t *testing.T) {
	e := newSchemaEnv(t)
	topic := csTopic()
	props := map[string]string{"b": "2", "a": "1"}
	p := testProducer(t, e.c, ProducerOptions{Topic: topic, Schema: NewAvroSchema(testAvroDef, props)})
	_ = e.subscribe(ConsumerOptions{Topic: topic, Schema: NewAvroSchema(testAvroDef, props)})
	r, err := e.c.CreateReader(ReaderOptions{Topic: topic, StartMessageID: EarliestMessageID(), Schema: NewAvroSchema(testAvroDef, props)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_ = p

	want := wantSchema("Avro", proto.Schema_Avro, testAvroCanonical, "a", "1", "b", "2")
	prods := e.rec.commands(t, proto.BaseCommand_PRODUCER)
	if len(prods) != 1 || !gproto.Equal(prods[0].GetProducer().GetSchema(), want) {
		t.Fatalf("PRODUCER schema %v, want %v", prods, want)
	}
	subs := e.rec.commands(t, proto.BaseCommand_SUBSCRIBE)
	if len(subs) != 2 {
		t.Fatalf("%d SUBSCRIBE", len(subs))
	}
	for _, s := range subs {
		if !gproto.Equal(s.GetSubscribe().GetSchema(), want) {
			t.Errorf("SUBSCRIBE schema %v, want %v", s.GetSubscribe().GetSchema(), want)
		}
	}
}

// A BYTES schema (type NONE) is sent as NewBytesSchema(nil): the official
// client drops its properties. A producer without schema sends none.
func TestBytesSchemaIsSentWithoutProperties(t *testing.T) {
	e := newSchemaEnv(t)
	withSchema, plain := csTopic(), csTopic()
	_ = testProducer(t, e.c, ProducerOptions{Topic: withSchema, Schema: NewBytesSchema(map[string]string{"pulsar": "hello"})})
	_ = testProducer(t, e.c, ProducerOptions{Topic: plain})
	var got []*proto.Schema
	for _, c := range e.rec.commands(t, proto.BaseCommand_PRODUCER) {
		got = append(got, c.GetProducer().GetSchema())
	}
	if len(got) != 2 || !gproto.Equal(got[0], wantSchema("Bytes", proto.Schema_None, "")) || got[1] != nil {
		t.Fatalf("PRODUCER schemas %v", got)
	}
}

// Every message of a producer with a schema carries the schema version the
// broker answered in PRODUCER_SUCCESS, batched or not, and the producer
// asks nothing more of the broker.
func TestProducerSchemaVersionFromProducerSuccess(t *testing.T) {
	e := newSchemaEnv(t)
	topic := csTopic()
	rc := rawSubscribe(t, e.b, topic, 0)
	for _, batching := range []bool{false, true} {
		p := testProducer(t, e.c, ProducerOptions{Topic: topic, Schema: NewStringSchema(nil), DisableBatching: !batching})
		if _, err := p.Send(csCtx(t), &ProducerMessage{Value: "v"}); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	for _, g := range rc.wait(2, 5e9) {
		if v := g.Meta.GetSchemaVersion(); len(v) != 8 || v[7] != 0 {
			t.Errorf("message %v: schema version %x, want version 0", g.ID, v)
		}
	}
	if n := e.count("GET_OR_CREATE_SCHEMA"); n != 0 {
		t.Errorf("%d GET_OR_CREATE_SCHEMA for the producer's own schema", n)
	}
}
