package pulsar

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pulsargo/sdk/brokerstub"
)

const testAvroDefV2 = `{"type":"record","name":"Example","namespace":"test",` +
	`"fields":[{"name":"ID","type":"int"},{"name":"Name","type":"string"},{"name":"Age","type":"int","default":0}]}`

type testExampleV2 struct {
	ID   int    `avro:"ID"`
	Name string `avro:"Name"`
	Age  int    `avro:"Age"`
}

// A producer whose messages carry another schema registers it once
// (GET_OR_CREATE_SCHEMA), tags them with its version and keeps a batch to
// one version; a consumer decodes each message with the schema it was
// written with, asking the broker once per version (GET_SCHEMA).
func TestMultiSchemaProducer(t *testing.T) {
	e := newSchemaEnv(t)
	topic := csTopic()
	rc := rawSubscribe(t, e.b, topic, 0)
	v1, v2 := NewAvroSchema(testAvroDef, nil), NewAvroSchema(testAvroDefV2, nil)
	p := testProducer(t, e.c, ProducerOptions{Topic: topic, Schema: v1, BatchingMaxPublishDelay: 1e10, BatchingMaxMessages: 100})
	sends := []*ProducerMessage{
		{Value: testExample{ID: 1, Name: "a"}},
		{Value: testExample{ID: 2, Name: "b"}},
		{Value: testExampleV2{ID: 3, Name: "c", Age: 30}, Schema: v2},
		{Value: testExampleV2{ID: 4, Name: "d", Age: 40}, Schema: v2},
		{Value: testExample{ID: 5, Name: "e"}},
	}
	done := make(chan error, len(sends))
	for _, m := range sends {
		p.SendAsync(csCtx(t), m, func(_ MessageID, _ *ProducerMessage, err error) { done <- err })
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	for range sends {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := e.count(brokerstub.CmdGetOrCreateSchema); n != 1 {
		t.Errorf("%d GET_OR_CREATE_SCHEMA, want 1", n)
	}
	// Three entries: a batch per run of one version.
	gots := rc.wait(len(sends), 5e9)
	var versions [][]byte
	for i, g := range gots {
		if i == 0 || g.Entry != gots[i-1].Entry {
			versions = append(versions, g.Meta.GetSchemaVersion())
		}
	}
	if len(versions) != 3 || !bytes.Equal(versions[0], versions[2]) || bytes.Equal(versions[0], versions[1]) {
		t.Fatalf("entry schema versions %x, want v1, v2, v1", versions)
	}

	c := e.subscribe(ConsumerOptions{Topic: topic}) // no schema: the writers' decide
	for _, want := range []testExampleV2{{1, "a", 0}, {2, "b", 0}, {3, "c", 30}, {4, "d", 40}, {5, "e", 0}} {
		var got testExampleV2
		m := decodeAs(t, c, &got)
		if got != want {
			t.Errorf("message %v: %+v, want %+v", m.ID(), got, want)
		}
		// Decoding again uses the cached schema.
		if err := m.GetSchemaValue(&got); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.count(brokerstub.CmdGetSchema); n != 2 {
		t.Errorf("%d GET_SCHEMA, want 2 (one per version)", n)
	}
}

func TestDisableMultiSchemaRefusesAnotherSchema(t *testing.T) {
	e := newSchemaEnv(t)
	p := testProducer(t, e.c, ProducerOptions{Topic: csTopic(), Schema: NewAvroSchema(testAvroDef, nil), DisableMultiSchema: true})
	_, err := p.Send(csCtx(t), &ProducerMessage{Value: testExampleV2{ID: 1}, Schema: NewAvroSchema(testAvroDefV2, nil)})
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("send: %v, want a *SchemaError", err)
	}
	// The same schema given again is the producer's.
	if _, err := p.Send(csCtx(t), &ProducerMessage{Value: testExample{ID: 1}, Schema: NewAvroSchema(testAvroDef, nil)}); err != nil {
		t.Fatal(err)
	}
	if n := e.count(brokerstub.CmdGetOrCreateSchema); n != 0 {
		t.Errorf("%d GET_OR_CREATE_SCHEMA", n)
	}
}

// A schema the topic's compatibility check refuses fails the producer, a
// message's own schema and the consumer with the broker's
// IncompatibleSchema.
func TestIncompatibleSchemaIsRefused(t *testing.T) {
	e := newSchemaEnv(t)
	topic := csTopic()
	incompatible := `{"type":"record","name":"Example","namespace":"test","fields":[{"name":"ID","type":"string"}]}`
	p := testProducer(t, e.c, ProducerOptions{Topic: topic, Schema: NewAvroSchema(testAvroDef, nil)})
	if _, err := p.Send(csCtx(t), &ProducerMessage{Value: testExample{ID: 1}}); err != nil {
		t.Fatal(err)
	}
	isIncompatible := func(what string, err error) {
		t.Helper()
		var sv *ServerError
		if !errors.As(err, &sv) || sv.Code != "IncompatibleSchema" {
			t.Errorf("%s: %v, want IncompatibleSchema", what, err)
		}
	}
	_, err := e.c.CreateProducer(ProducerOptions{Topic: topic, Schema: NewAvroSchema(incompatible, nil)})
	isIncompatible("second producer", err)
	_, err = p.Send(csCtx(t), &ProducerMessage{Value: struct{ ID string }{"x"}, Schema: NewAvroSchema(incompatible, nil)})
	var se *SchemaError
	if !errors.As(err, &se) || se.Op != "register" {
		t.Errorf("message schema: %v, want a register *SchemaError", err)
	}
	isIncompatible("message schema", err)
	_, err = e.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", Schema: NewAvroSchema(incompatible, nil)})
	isIncompatible("consumer", err)
	_, err = e.c.CreateProducer(ProducerOptions{Topic: topic, Schema: NewStringSchema(nil)})
	isIncompatible("producer of another type", err)
}
