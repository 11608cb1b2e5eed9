package integration

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/pulsar"
)

// crossSchema is one schema type as both clients build it, a value, and
// how each client's consumer decodes it.
type crossSchema struct {
	name     string
	official func() official.Schema
	ours     func() pulsar.Schema
	value    any
	// target returns a pointer to decode into for the official client
	// (official) or pulsargo, and read returns the value it holds.
	target func(official bool) any
	read   func(p any) any
}

type crossUser struct {
	Name string `json:"name" avro:"name"`
	Age  int32  `json:"age" avro:"age"`
}

func crossSchemas(text string) []crossSchema {
	props := map[string]string{"owner": "it", "a": "1"}
	st, _ := structpb.NewStruct(map[string]any{"text": text, "n": 3.0})
	deref := func(p any) any { return reflect.ValueOf(p).Elem().Interface() }
	newOf := func(v any) func(bool) any {
		return func(bool) any { return reflect.New(reflect.TypeOf(v)).Interface() }
	}
	return []crossSchema{
		{"avro", func() official.Schema { return official.NewAvroSchema(userDef, props) },
			func() pulsar.Schema { return pulsar.NewAvroSchema(userDef, props) },
			crossUser{Name: text, Age: 41}, newOf(crossUser{}), deref},
		{"json", func() official.Schema { return official.NewJSONSchema(userDef, props) },
			func() pulsar.Schema { return pulsar.NewJSONSchema(userDef, props) },
			crossUser{Name: text, Age: 42}, newOf(crossUser{}), deref},
		{"proto", func() official.Schema { return official.NewProtoSchema(userDef, props) },
			func() pulsar.Schema { return pulsar.NewProtoSchema(userDef, props) },
			st, func(bool) any { return &structpb.Struct{} }, func(p any) any { return p }},
		{"protonative", func() official.Schema { return official.NewProtoNativeSchemaWithMessage(&structpb.Struct{}, props) },
			func() pulsar.Schema { return pulsar.NewProtoNativeSchemaWithMessage(&structpb.Struct{}, props) },
			st, func(bool) any { return &structpb.Struct{} }, func(p any) any { return p }},
		{"string", func() official.Schema { return official.NewStringSchema(props) },
			func() pulsar.Schema { return pulsar.NewStringSchema(props) },
			text, func(off bool) any {
				if off {
					return new(*string) // the official client decodes into a **string only
				}
				return new(string)
			}, func(p any) any {
				if pp, ok := p.(**string); ok {
					return **pp
				}
				return *p.(*string)
			}},
		{"bytes", func() official.Schema { return official.NewBytesSchema(props) },
			func() pulsar.Schema { return pulsar.NewBytesSchema(props) },
			[]byte(text), newOf([]byte(nil)), deref},
		{"int8", func() official.Schema { return official.NewInt8Schema(props) },
			func() pulsar.Schema { return pulsar.NewInt8Schema(props) }, int8(-8), newOf(int8(0)), deref},
		{"int16", func() official.Schema { return official.NewInt16Schema(props) },
			func() pulsar.Schema { return pulsar.NewInt16Schema(props) }, int16(-1600), newOf(int16(0)), deref},
		{"int32", func() official.Schema { return official.NewInt32Schema(props) },
			func() pulsar.Schema { return pulsar.NewInt32Schema(props) }, int32(-320000), newOf(int32(0)), deref},
		{"int64", func() official.Schema { return official.NewInt64Schema(props) },
			func() pulsar.Schema { return pulsar.NewInt64Schema(props) }, int64(-1 << 50), newOf(int64(0)), deref},
		{"float", func() official.Schema { return official.NewFloatSchema(props) },
			func() pulsar.Schema { return pulsar.NewFloatSchema(props) }, float32(1.25), newOf(float32(0)), deref},
		{"double", func() official.Schema { return official.NewDoubleSchema(props) },
			func() pulsar.Schema { return pulsar.NewDoubleSchema(props) }, 6.5, newOf(float64(0)), deref},
	}
}

func sameCrossValue(got, want any) bool {
	if gm, ok := got.(gproto.Message); ok {
		wm, ok := want.(gproto.Message)
		return ok && gproto.Equal(gm, wm)
	}
	return reflect.DeepEqual(got, want)
}

// crossMode is how the producer sends: batched, or chunked (no batching,
// chunks of 100 bytes, which both clients support).
type crossMode struct {
	name    string
	chunked bool
}

var crossModes = []crossMode{{"batched", false}, {"chunked", true}}

// TestSchemaCrossClient: every schema type round-trips between the clients
// in both directions, batched and chunked; the schema each sends in
// PRODUCER and SUBSCRIBE is the other's byte for byte (properties compared
// as a set: the official client sends them in map order).
func TestSchemaCrossClient(t *testing.T) {
	tap := startTappedStub(t)
	off := officialClient(t, tap.URL())
	ours := sdkClient(t, tap.URL())
	const n = 3
	for _, mode := range crossModes {
		text := "short"
		if mode.chunked {
			text = strings.Repeat("a longer text to chunk ", 30)
		}
		for _, sc := range crossSchemas(text) {
			t.Run(mode.name+"/"+sc.name+"/official-to-pulsargo", func(t *testing.T) {
				topic := newTopic(t)
				c, err := ours.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s", Schema: sc.ours(),
					SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				po := official.ProducerOptions{Topic: topic, Schema: sc.official(), BatchingMaxPublishDelay: time.Second}
				if mode.chunked {
					po.DisableBatching, po.EnableChunking, po.ChunkMaxMessageSize = true, true, 100
				}
				p, err := off.CreateProducer(po)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				sendOfficial(t, p, sc.value, n)
				for range n {
					m, err := c.Receive(ctxT(t))
					if err != nil {
						t.Fatal(err)
					}
					out := sc.target(false)
					if err := m.GetSchemaValue(out); err != nil {
						t.Fatalf("decode: %v", err)
					}
					if got := sc.read(out); !sameCrossValue(got, sc.value) {
						t.Fatalf("decoded %v, want %v", got, sc.value)
					}
				}
			})
			t.Run(mode.name+"/"+sc.name+"/pulsargo-to-official", func(t *testing.T) {
				topic := newTopic(t)
				c, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Schema: sc.official(),
					SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				po := pulsar.ProducerOptions{Topic: topic, Schema: sc.ours(), BatchingMaxPublishDelay: time.Second}
				if mode.chunked {
					po.DisableBatching, po.EnableChunking, po.ChunkMaxMessageSize = true, true, 100
				}
				p, err := ours.CreateProducer(po)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				sendOurs(t, p, sc.value, n)
				for _, m := range receiveN(t, c, n) {
					out := sc.target(true)
					if err := m.GetSchemaValue(out); err != nil {
						t.Fatalf("decode: %v", err)
					}
					if got := sc.read(out); !sameCrossValue(got, sc.value) {
						t.Fatalf("decoded %v, want %v", got, sc.value)
					}
				}
			})
		}
	}
	compareSchemas(t, "PRODUCER", tap.commands(t, pb.BaseCommand_PRODUCER), func(c *pb.BaseCommand) *pb.Schema { return c.GetProducer().GetSchema() })
	compareSchemas(t, "SUBSCRIBE", tap.commands(t, pb.BaseCommand_SUBSCRIBE), func(c *pb.BaseCommand) *pb.Schema { return c.GetSubscribe().GetSchema() })
}

// compareSchemas checks that cmds hold a schema of every type, each sent
// identically by both clients.
func compareSchemas(t *testing.T, what string, cmds []*pb.BaseCommand, get func(*pb.BaseCommand) *pb.Schema) {
	t.Helper()
	if kinds := schemaKinds(t, what, cmds, get); len(kinds) != 12 { // one per schema type
		t.Errorf("%s: schemas of %d kinds: %v", what, len(kinds), slices.Sorted(maps.Keys(kinds)))
	}
}

// schemaKinds groups the schemas of cmds by name and type and checks that
// each group's are identical: the commands of both clients for one schema.
func schemaKinds(t *testing.T, what string, cmds []*pb.BaseCommand, get func(*pb.BaseCommand) *pb.Schema) map[string][][]byte {
	t.Helper()
	byKind := map[string][][]byte{}
	for _, c := range cmds {
		s := get(c)
		if s == nil {
			t.Errorf("%s without schema", what)
			continue
		}
		s = gproto.Clone(s).(*pb.Schema)
		slices.SortFunc(s.Properties, func(a, b *pb.KeyValue) int { return strings.Compare(a.GetKey(), b.GetKey()) })
		b, err := gproto.MarshalOptions{Deterministic: true}.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		kind := s.GetName() + "/" + s.GetType().String()
		byKind[kind] = append(byKind[kind], b)
	}
	for kind, all := range byKind {
		for _, b := range all[1:] {
			if string(b) != string(all[0]) {
				t.Errorf("%s %s: schemas differ:\n%x\n%x", what, kind, all[0], b)
			}
		}
	}
	return byKind
}

func sendOfficial(t *testing.T, p official.Producer, v any, n int) {
	t.Helper()
	errs := make(chan error, n)
	for range n {
		p.SendAsync(context.Background(), &official.ProducerMessage{Value: v}, func(_ official.MessageID, _ *official.ProducerMessage, err error) { errs <- err })
	}
	if err := p.FlushWithCtx(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func sendOurs(t *testing.T, p pulsar.Producer, v any, n int) {
	t.Helper()
	errs := make(chan error, n)
	for range n {
		p.SendAsync(context.Background(), &pulsar.ProducerMessage{Value: v}, func(_ pulsar.MessageID, _ *pulsar.ProducerMessage, err error) { errs <- err })
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestSchemaCrossIncompatibleRefused: after either client registered a
// schema, a producer of the other with an incompatible schema is refused
// with IncompatibleSchema; with the same schema it is accepted and gets the
// same version.
func TestSchemaCrossIncompatibleRefused(t *testing.T) {
	b := startStub(t)
	off := officialClient(t, b.URL())
	ours := sdkClient(t, b.URL())

	t.Run("official-first", func(t *testing.T) {
		topic := newTopic(t)
		p, err := off.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userDef, nil)})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Send(ctxT(t), &official.ProducerMessage{Value: crossUser{Name: "x"}}); err != nil {
			t.Fatal(err)
		}
		_, err = ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userDefIncompatible, nil)})
		var se *pulsar.ServerError
		if !errors.As(err, &se) || se.Code != "IncompatibleSchema" {
			t.Fatalf("pulsargo producer with an incompatible schema: %v", err)
		}
		same, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userDef, nil)})
		if err != nil {
			t.Fatalf("pulsargo producer with the same schema: %v", err)
		}
		same.Close()
	})
	t.Run("pulsargo-first", func(t *testing.T) {
		topic := newTopic(t)
		p, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userDef, nil)})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if _, err := p.Send(ctxT(t), &pulsar.ProducerMessage{Value: crossUser{Name: "x"}}); err != nil {
			t.Fatal(err)
		}
		_, err = off.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userDefIncompatible, nil)})
		if err == nil || !strings.Contains(err.Error(), "IncompatibleSchema") {
			t.Fatalf("official producer with an incompatible schema: %v", err)
		}
		same, err := off.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userDef, nil)})
		if err != nil {
			t.Fatalf("official producer with the same schema: %v", err)
		}
		same.Close()
	})
}

const userDefV2 = `{"type":"record","name":"User","namespace":"it","fields":[` +
	`{"name":"name","type":"string"},{"name":"age","type":"int","default":0},{"name":"city","type":"string","default":""}]}`

type crossUserV2 struct {
	Name string `avro:"name"`
	Age  int32  `avro:"age"`
	City string `avro:"city"`
}

// TestSchemaCrossMultiSchema: a producer of either client whose messages
// carry a second schema registers it with the same GET_OR_CREATE_SCHEMA as
// the other client, and the other client's consumer decodes every message
// with the schema it was written with.
func TestSchemaCrossMultiSchema(t *testing.T) {
	tap := startTappedStub(t)
	off := officialClient(t, tap.URL())
	ours := sdkClient(t, tap.URL())
	want := []crossUserV2{{"a", 1, ""}, {"b", 2, "paris"}, {"c", 3, ""}}

	t.Run("official-to-pulsargo", func(t *testing.T) {
		topic := newTopic(t)
		v1, v2 := official.NewAvroSchema(userDef, nil), official.NewAvroSchema(userDefV2, nil)
		p, err := off.CreateProducer(official.ProducerOptions{Topic: topic, Schema: v1, BatchingMaxPublishDelay: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, m := range []*official.ProducerMessage{
			{Value: crossUser{Name: "a", Age: 1}}, {Value: crossUserV2{"b", 2, "paris"}, Schema: v2}, {Value: crossUser{Name: "c", Age: 3}},
		} {
			if _, err := p.Send(ctxT(t), m); err != nil {
				t.Fatal(err)
			}
		}
		c, err := ours.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s", SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, w := range want {
			m, err := c.Receive(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			var got crossUserV2
			if err := m.GetSchemaValue(&got); err != nil || got != w {
				t.Fatalf("decoded %+v, %v; want %+v", got, err, w)
			}
		}
	})
	t.Run("pulsargo-to-official", func(t *testing.T) {
		topic := newTopic(t)
		v1, v2 := pulsar.NewAvroSchema(userDef, nil), pulsar.NewAvroSchema(userDefV2, nil)
		p, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: v1, BatchingMaxPublishDelay: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, m := range []*pulsar.ProducerMessage{
			{Value: crossUser{Name: "a", Age: 1}}, {Value: crossUserV2{"b", 2, "paris"}, Schema: v2}, {Value: crossUser{Name: "c", Age: 3}},
		} {
			if _, err := p.Send(ctxT(t), m); err != nil {
				t.Fatal(err)
			}
		}
		c, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for i, m := range receiveN(t, c, len(want)) {
			var got crossUserV2
			if err := m.GetSchemaValue(&got); err != nil || got != want[i] {
				t.Fatalf("decoded %+v, %v; want %+v", got, err, want[i])
			}
		}
	})
	kinds := schemaKinds(t, "GET_OR_CREATE_SCHEMA", tap.commands(t, pb.BaseCommand_GET_OR_CREATE_SCHEMA),
		func(c *pb.BaseCommand) *pb.Schema { return c.GetGetOrCreateSchema().GetSchema() })
	if len(kinds) != 1 || len(kinds["Avro/Avro"]) != 2 {
		t.Fatalf("GET_OR_CREATE_SCHEMA: %d kinds, want one Avro schema from each client", len(kinds))
	}
}
