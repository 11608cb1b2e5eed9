package pulsar

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

const (
	testAvroDef = `{"type":"record","name":"Example","namespace":"test",` +
		`"fields":[{"name":"ID","type":"int"},{"name":"Name","type":"string"}]}`
	// testAvroCanonical is what the official client sends for testAvroDef:
	// json.Marshal of the parsed schema (names qualified, no extra spaces).
	testAvroCanonical = `{"name":"test.Example","type":"record",` +
		`"fields":[{"name":"ID","type":"int"},{"name":"Name","type":"string"}]}`
)

type testExample struct {
	ID   int    `avro:"ID" json:"ID"`
	Name string `avro:"Name" json:"Name"`
}

func TestSchemaInfoOfEveryConstructor(t *testing.T) {
	props := map[string]string{"k": "v"}
	cases := []struct {
		s        Schema
		name     string
		typ      SchemaType
		def      string
		wireType int32
	}{
		{NewAvroSchema(testAvroDef, props), "Avro", AVRO, testAvroCanonical, 4},
		{NewJSONSchema(testAvroDef, props), "JSON", JSON, testAvroCanonical, 2},
		{NewProtoSchema(testAvroDef, props), "Proto", PROTOBUF, testAvroCanonical, 3},
		{NewStringSchema(props), "String", STRING, "", 1},
		{NewBytesSchema(props), "Bytes", BYTES, "", 0},
		{NewInt8Schema(props), "INT8", INT8, "", 6},
		{NewInt16Schema(props), "INT16", INT16, "", 7},
		{NewInt32Schema(props), "INT32", INT32, "", 8},
		{NewInt64Schema(props), "INT64", INT64, "", 9},
		{NewFloatSchema(props), "FLOAT", FLOAT, "", 10},
		{NewDoubleSchema(props), "DOUBLE", DOUBLE, "", 11},
	}
	for _, c := range cases {
		info := c.s.GetSchemaInfo()
		if info.Name != c.name || info.Type != c.typ || info.Schema != c.def || info.Properties["k"] != "v" {
			t.Errorf("%T: info %+v, want name %q type %d def %q", c.s, info, c.name, c.typ, c.def)
		}
		p := schemaProto(info)
		if int32(p.GetType()) != c.wireType || p.GetName() != c.name || string(p.GetSchemaData()) != c.def {
			t.Errorf("%T: wire schema %v", c.s, p)
		}
		if len(p.GetProperties()) != 1 || p.GetProperties()[0].GetKey() != "k" {
			t.Errorf("%T: wire properties %v", c.s, p.GetProperties())
		}
	}
}

func TestSchemaProtoSortsProperties(t *testing.T) {
	info := &SchemaInfo{Name: "x", Type: STRING, Properties: map[string]string{"b": "2", "a": "1", "c": "3"}}
	for range 20 { // map order varies between iterations; the wire form must not
		var keys []string
		for _, kv := range schemaProto(info).GetProperties() {
			keys = append(keys, kv.GetKey())
		}
		if strings.Join(keys, ",") != "a,b,c" {
			t.Fatalf("properties in order %v", keys)
		}
	}
	if schemaProto(&SchemaInfo{Name: "x"}).Properties != nil {
		t.Fatal("no properties must send none")
	}
}

func TestPrimitiveSchemasEncodeAsTheOfficialClient(t *testing.T) {
	enc := func(s Schema, v any) []byte {
		t.Helper()
		b, err := s.Encode(v)
		if err != nil {
			t.Fatalf("%T.Encode(%v): %v", s, v, err)
		}
		return b
	}
	checks := []struct {
		got, want []byte
	}{
		{enc(NewInt8Schema(nil), int8(-2)), []byte{0xfe}},
		{enc(NewInt16Schema(nil), int16(0x0102)), []byte{0x02, 0x01}},
		{enc(NewInt32Schema(nil), int32(0x01020304)), []byte{0x04, 0x03, 0x02, 0x01}},
		{enc(NewInt64Schema(nil), int64(0x0102030405060708)), []byte{8, 7, 6, 5, 4, 3, 2, 1}},
		{enc(NewFloatSchema(nil), float32(1.5)), binary.BigEndian.AppendUint32(nil, math.Float32bits(1.5))},
		{enc(NewDoubleSchema(nil), 2.25), binary.BigEndian.AppendUint64(nil, math.Float64bits(2.25))},
		{enc(NewStringSchema(nil), "héllo"), []byte("héllo")},
		{enc(NewBytesSchema(nil), []byte{0, 1}), []byte{0, 1}},
	}
	for i, c := range checks {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("case %d: % x, want % x", i, c.got, c.want)
		}
	}
}

func TestPrimitiveSchemasRoundTrip(t *testing.T) {
	var i8 int8
	var i16 int16
	var i32 int32
	var i64 int64
	var f32 float32
	var f64 float64
	var s string
	var sp *string
	var b []byte
	cases := []struct {
		s    Schema
		in   any
		out  any
		read func() any
	}{
		{NewInt8Schema(nil), int8(-7), &i8, func() any { return i8 }},
		{NewInt16Schema(nil), int16(-300), &i16, func() any { return i16 }},
		{NewInt32Schema(nil), int32(-70000), &i32, func() any { return i32 }},
		{NewInt64Schema(nil), int64(-1 << 40), &i64, func() any { return i64 }},
		{NewFloatSchema(nil), float32(3.25), &f32, func() any { return f32 }},
		{NewDoubleSchema(nil), -1e300, &f64, func() any { return f64 }},
		{NewStringSchema(nil), "text", &s, func() any { return s }},
		{NewStringSchema(nil), "ptr", &sp, func() any { return *sp }},
		{NewBytesSchema(nil), []byte("raw"), &b, func() any { return string(b) }},
	}
	for _, c := range cases {
		data, err := c.s.Encode(c.in)
		if err != nil {
			t.Fatalf("%T encode: %v", c.s, err)
		}
		if err := c.s.Validate(data); err != nil {
			t.Errorf("%T validate: %v", c.s, err)
		}
		if err := c.s.Decode(data, c.out); err != nil {
			t.Fatalf("%T decode: %v", c.s, err)
		}
		want := c.in
		if bs, ok := want.([]byte); ok {
			want = string(bs)
		}
		if got := c.read(); got != want {
			t.Errorf("%T: got %v, want %v", c.s, got, want)
		}
	}
}

// Values of the wrong Go type and short payloads give a *SchemaError, not
// the official client's panic.
func TestSchemasRefuseWrongTypesWithSchemaError(t *testing.T) {
	var i32 int32
	var s string
	errs := []error{}
	add := func(_ []byte, err error) { errs = append(errs, err) }
	add(NewInt8Schema(nil).Encode(1))
	add(NewInt32Schema(nil).Encode("x"))
	add(NewFloatSchema(nil).Encode(int64(1<<60 + 1)))
	add(NewStringSchema(nil).Encode(42))
	add(NewBytesSchema(nil).Encode("not bytes"))
	add(NewProtoSchema(testAvroDef, nil).Encode(struct{}{}))
	add(NewAvroSchema(testAvroDef, nil).Encode(42))
	add(NewJSONSchema(testAvroDef, nil).Encode(func() {}))
	errs = append(errs,
		NewInt32Schema(nil).Decode([]byte{1, 2}, &i32),
		NewInt32Schema(nil).Decode([]byte{1, 2, 3, 4}, &s),
		NewStringSchema(nil).Decode([]byte("x"), &i32),
		NewStringSchema(nil).Decode([]byte("x"), nil),
		NewBytesSchema(nil).Decode([]byte("x"), &s),
		NewProtoSchema(testAvroDef, nil).Decode([]byte{1}, &s),
		NewJSONSchema(testAvroDef, nil).Decode([]byte("{"), &s),
		NewInt64Schema(nil).Validate([]byte{1}),
		NewJSONSchema(testAvroDef, nil).Validate([]byte("{")),
		NewProtoSchema(testAvroDef, nil).Validate([]byte{0xff}),
	)
	for i, err := range errs {
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("case %d: %v (%T), want a *SchemaError", i, err, err)
		}
	}
}

func TestAvroAndJSONSchemasRoundTrip(t *testing.T) {
	in := testExample{ID: 42, Name: "pulsar"}
	for _, s := range []Schema{NewAvroSchema(testAvroDef, nil), NewJSONSchema(testAvroDef, nil)} {
		data, err := s.Encode(in)
		if err != nil {
			t.Fatalf("%T: %v", s, err)
		}
		if err := s.Validate(data); err != nil {
			t.Errorf("%T validate: %v", s, err)
		}
		var out testExample
		if err := s.Decode(data, &out); err != nil || out != in {
			t.Errorf("%T: decoded %+v, %v", s, out, err)
		}
	}
	// Avro's binary form: zig-zag 42, length 6, "pulsar".
	data, _ := NewAvroSchema(testAvroDef, nil).Encode(in)
	if want := append([]byte{84, 12}, "pulsar"...); !bytes.Equal(data, want) {
		t.Errorf("avro encoding % x, want % x", data, want)
	}
}

func TestProtoSchemasRoundTrip(t *testing.T) {
	in := timestamppb.New(timestamppb.Now().AsTime())
	for _, s := range []Schema{NewProtoSchema(testAvroDef, nil), NewProtoNativeSchemaWithMessage(in, nil)} {
		data, err := s.Encode(in)
		if err != nil {
			t.Fatalf("%T: %v", s, err)
		}
		out := &timestamppb.Timestamp{}
		if err := s.Decode(data, out); err != nil || !gproto.Equal(in, out) {
			t.Errorf("%T: decoded %v, %v", s, out, err)
		}
		if err := s.Validate(data); err != nil {
			t.Errorf("%T validate: %v", s, err)
		}
	}
}

// The PROTOBUF_NATIVE definition is the official client's JSON: the
// serialized FileDescriptorSet (the root file and its imports, imports
// first), the root message's full name and file.
func TestProtoNativeDefinition(t *testing.T) {
	s, err := NewProtoNativeSchemaWithMessageWithValidation(&descriptorpb.FileDescriptorSet{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := s.GetSchemaInfo()
	if info.Name != "ProtoNative" || info.Type != ProtoNative {
		t.Fatalf("info %+v", info)
	}
	var data ProtoNativeSchemaData
	if err := jsonUnmarshal([]byte(info.Schema), &data); err != nil {
		t.Fatal(err)
	}
	if data.RootMessageTypeName != "google.protobuf.FileDescriptorSet" ||
		data.RootFileDescriptorName != "google/protobuf/descriptor.proto" {
		t.Fatalf("definition %+v", data)
	}
	var set descriptorpb.FileDescriptorSet
	if err := gproto.Unmarshal(data.FileDescriptorSet, &set); err != nil || len(set.GetFile()) != 1 ||
		set.GetFile()[0].GetName() != "google/protobuf/descriptor.proto" {
		t.Fatalf("descriptor set %v, %v", &set, err)
	}
	if _, err := NewProtoNativeSchemaWithMessageWithValidation(nil, nil); err == nil {
		t.Fatal("a nil message must be refused")
	}
}

// A definition that does not parse: the WithValidation constructors fail,
// the legacy ones give a schema whose every use fails (the official client
// exits the process), and NewSchema refuses types it has no codec for.
func TestBadSchemaDefinitions(t *testing.T) {
	bad := []string{
		`{"type":"record","name":"Example","fields":[{"name":"ID","type":"int64"}]}`,
		`"{"type":"record"`,
		`{"type":"fixed","name":"f"}`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
	}
	for _, def := range bad {
		if _, err := NewAvroSchemaWithValidation(def, nil); err == nil {
			t.Errorf("avro %.40q: no error", def)
		}
		if _, err := NewJSONSchemaWithValidation(def, nil); err == nil {
			t.Errorf("json %.40q: no error", def)
		}
		if _, err := NewProtoSchemaWithValidation(def, nil); err == nil {
			t.Errorf("proto %.40q: no error", def)
		}
		for _, s := range []Schema{NewAvroSchema(def, nil), NewJSONSchema(def, nil), NewProtoSchema(def, nil)} {
			var se *SchemaError
			if err := checkSchema(s); !errors.As(err, &se) || se.Op != "parse" {
				t.Errorf("%T %.40q: checkSchema %v", s, def, err)
			}
			if _, err := s.Encode(testExample{}); err == nil {
				t.Errorf("%T: Encode of a failed schema worked", s)
			}
		}
	}
	for _, typ := range []SchemaType{BOOLEAN, KeyValue, AUTO, AutoConsume, AutoPublish, 99} {
		var se *SchemaError
		if s, err := NewSchema(typ, nil, nil); !errors.As(err, &se) || s != nil {
			t.Errorf("NewSchema(%d): %v, %v", typ, s, err)
		}
	}
	if s, err := NewSchema(AVRO, []byte("nope"), nil); err == nil || s != nil {
		t.Errorf("NewSchema(AVRO, nope): %v, %v", s, err)
	}
}

// initAvroCodec parses with a cache of its own: two definitions of one
// name do not collide, and parsing does not grow a process-wide cache.
func TestInitAvroCodecHasNoSharedCache(t *testing.T) {
	a := `{"type":"record","name":"Same","fields":[{"name":"a","type":"int"}]}`
	b := `{"type":"record","name":"Same","fields":[{"name":"b","type":"string"}]}`
	sa, err := initAvroCodec(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := initAvroCodec(b)
	if err != nil {
		t.Fatal(err)
	}
	if sa.String() == sb.String() {
		t.Fatal("the second definition was answered from the first's cache")
	}
	ref := `{"type":"record","name":"User","fields":[{"name":"s","type":"Same"}]}`
	if _, err := initAvroCodec(ref); err == nil {
		t.Fatal("a name defined by another parse resolved")
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
