package pulsar

import (
	"reflect"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// schemaCase is one schema with a value, and a fresh target to decode into.
type schemaCase struct {
	name   string
	schema func() Schema
	value  any
	target func() any      // a pointer to decode into
	deref  func(p any) any // the decoded value
}

func schemaCases(big bool) []schemaCase {
	text := "pulsar"
	if big {
		text = strings.Repeat("large text ", 500)
	}
	pbValue, _ := structpb.NewStruct(map[string]any{"name": text, "n": 7.0})
	return []schemaCase{
		{"avro", func() Schema { return NewAvroSchema(testAvroDef, nil) }, testExample{ID: 1, Name: text},
			func() any { return &testExample{} }, func(p any) any { return *p.(*testExample) }},
		{"json", func() Schema { return NewJSONSchema(testAvroDef, nil) }, testExample{ID: 2, Name: text},
			func() any { return &testExample{} }, func(p any) any { return *p.(*testExample) }},
		{"proto", func() Schema { return NewProtoSchema(testAvroDef, nil) }, pbValue,
			func() any { return &structpb.Struct{} }, func(p any) any { return p }},
		{"protonative", func() Schema { return NewProtoNativeSchemaWithMessage(&structpb.Struct{}, nil) }, pbValue,
			func() any { return &structpb.Struct{} }, func(p any) any { return p }},
		{"string", func() Schema { return NewStringSchema(nil) }, text,
			func() any { return new(string) }, func(p any) any { return *p.(*string) }},
		{"bytes", func() Schema { return NewBytesSchema(nil) }, []byte(text),
			func() any { return new([]byte) }, func(p any) any { return *p.(*[]byte) }},
		{"int8", func() Schema { return NewInt8Schema(nil) }, int8(-8),
			func() any { return new(int8) }, func(p any) any { return *p.(*int8) }},
		{"int16", func() Schema { return NewInt16Schema(nil) }, int16(-1600),
			func() any { return new(int16) }, func(p any) any { return *p.(*int16) }},
		{"int32", func() Schema { return NewInt32Schema(nil) }, int32(-320000),
			func() any { return new(int32) }, func(p any) any { return *p.(*int32) }},
		{"int64", func() Schema { return NewInt64Schema(nil) }, int64(-1 << 50),
			func() any { return new(int64) }, func(p any) any { return *p.(*int64) }},
		{"float", func() Schema { return NewFloatSchema(nil) }, float32(1.25),
			func() any { return new(float32) }, func(p any) any { return *p.(*float32) }},
		{"double", func() Schema { return NewDoubleSchema(nil) }, 6.5,
			func() any { return new(float64) }, func(p any) any { return *p.(*float64) }},
	}
}

func sameValue(got, want any) bool {
	if gm, ok := got.(gproto.Message); ok {
		wm, ok := want.(gproto.Message)
		return ok && gproto.Equal(gm, wm)
	}
	return reflect.DeepEqual(got, want)
}

// Every schema type round-trips through the stub: sent alone, in a batch
// and in chunks, received by a consumer with the schema and decoded with
// the writer's schema version.
func TestSchemaRoundTripEveryType(t *testing.T) {
	modes := []struct {
		name string
		opts ProducerOptions
		big  bool
	}{
		{"single", ProducerOptions{DisableBatching: true}, false},
		{"batched", ProducerOptions{BatchingMaxMessages: 3, BatchingMaxPublishDelay: 1e9}, false},
		{"chunked", ProducerOptions{DisableBatching: true, EnableChunking: true, ChunkMaxMessageSize: 100}, true},
	}
	v := newCSEnv(t)
	for _, mode := range modes {
		for _, sc := range schemaCases(mode.big) {
			t.Run(mode.name+"/"+sc.name, func(t *testing.T) {
				topic := csTopic()
				o := mode.opts
				o.Topic, o.Schema = topic, sc.schema()
				p := testProducer(t, v.c, o)
				c := v.subscribe(ConsumerOptions{Topic: topic, Schema: sc.schema()})
				const n = 3
				done := make(chan error, n)
				for range n {
					p.SendAsync(csCtx(t), &ProducerMessage{Value: sc.value}, func(_ MessageID, _ *ProducerMessage, err error) { done <- err })
				}
				for range n {
					if err := <-done; err != nil {
						t.Fatal(err)
					}
				}
				for range n {
					out := sc.target()
					m := decodeAs(t, c, out)
					if !sameValue(sc.deref(out), sc.value) {
						t.Fatalf("decoded %v, want %v", sc.deref(out), sc.value)
					}
					if len(m.SchemaVersion()) == 0 {
						t.Errorf("message without schema version")
					}
					enc, _ := sc.schema().Encode(sc.value)
					if _, chunked := m.ID().(ChunkMessageID); chunked != (mode.big && len(enc) > 100) {
						t.Errorf("chunked %v for %d bytes in mode %s", chunked, len(enc), mode.name)
					}
				}
			})
		}
	}
}
