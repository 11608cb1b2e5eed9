package avro

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustParse(t testing.TB, def string) *Schema {
	t.Helper()
	s, err := Parse(def)
	if err != nil {
		t.Fatalf("Parse(%.60s): %v", def, err)
	}
	return s
}

func jsonOf(t *testing.T, s *Schema) string {
	t.Helper()
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The JSON of a parsed schema: names qualified and no "namespace", a named
// type defined where it first occurs and named after, a field's default
// converted to its type, other attributes sorted after the known ones.
func TestMarshalJSON(t *testing.T) {
	cases := []struct{ def, want string }{
		{`"int"`, `"int"`},
		{`int`, `"int"`},
		{`{"type":"string","avro.java.string":"String"}`, `{"type":"string","avro.java.string":"String"}`},
		{`{"type":"long","logicalType":"timestamp-millis"}`, `{"type":"long","logicalType":"timestamp-millis"}`},
		{`{"type":"int","logicalType":"timestamp-millis"}`, `{"type":"int","logicalType":"timestamp-millis"}`}, // a property here
		{`{"type":"bytes","logicalType":"decimal","precision":4,"scale":0}`, `{"type":"bytes","logicalType":"decimal","precision":4}`},
		{`{"namespace":"n","type":"record","name":"R","doc":"d<","zz":1,"aa":[1.5,null],"fields":[` +
			`{"name":"a","type":{"type":"enum","name":"E","symbols":["X","Y"]},"default":"Y","order":"ignore"},` +
			`{"name":"b","type":"E"},{"name":"c","type":"int","default":2.9},{"name":"d","type":["null","R"],"default":null}]}`,
			`{"name":"n.R","doc":"d\u003c","type":"record","fields":[` +
				`{"name":"a","type":{"name":"n.E","type":"enum","symbols":["X","Y"]},"default":"Y","order":"ignore"},` +
				`{"name":"b","type":"n.E"},{"name":"c","type":"int","default":2},{"name":"d","type":["null","n.R"],"default":null}],` +
				`"aa":[1.5,null],"zz":1}`},
		{`{"type":"fixed","name":"F","size":2,"doc":"kept as a property"}`, `{"name":"F","type":"fixed","size":2,"doc":"kept as a property"}`},
		{`{"type":"record","name":"B","fields":[{"name":"b","type":"bytes","default":"\u00ff"}]}`,
			`{"name":"B","type":"record","fields":[{"name":"b","type":"bytes","default":"/w=="}]}`},
	}
	for _, c := range cases {
		if got := jsonOf(t, mustParse(t, c.def)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.def, got, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, def := range []string{
		`"nope"`, `{"type":"record","name":"R","fields":[{"name":"a","type":"Other"}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}],"namespace":"x","aliases":[5]}`,
		`{"type":"enum","name":"E","symbols":["1"]}`, `["null","null"]`, `[["int"]]`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]}`,
		`{"type":"record","name":"R","fields":[{"name":"r","type":"R","default":{}}]}`, // refers to itself before its fields are known
		`{"type":"fixed","name":"F","size":1e12}`, `12`, `true`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
	} {
		if _, err := Parse(def); err == nil {
			t.Errorf("%.60s: no error", def)
		}
	}
}

// Any document parses or fails without panicking, and the JSON of what
// parses is valid JSON. (It need not parse back to the same schema: as in
// the official client's library, a bytes default is written in base64 and
// a fixed default as an array of numbers.) A schema that parses is then
// used: the input after a NUL byte (which no JSON document holds) is a
// payload to validate and decode, what decodes is encoded again, and a
// record is encoded from its defaults alone; each may fail, none may
// panic.
func FuzzParse(f *testing.F) {
	f.Add(`{"type":"record","name":"R","namespace":"n","fields":[{"name":"a","type":["null","R"],"default":null},` +
		`{"name":"m","type":{"type":"map","values":{"type":"fixed","name":"F","size":2}},"default":{"k":"ab"}}]}`)
	f.Add(`{"type":"array","items":{"type":"enum","name":"E","symbols":["A"],"default":"A","x":{"y":[1,"\u2028\u0001"]}}}`)
	f.Add(`["int",{"type":"long","logicalType":"time-micros"},"string"]`)
	f.Add(`{"type":"record","name":"A","fields":[{"name":"a","type":[]},{"name":"b","type":{"type":"array","items":[]}}]}` + "\x00\x00\x02\x01")
	f.Add(`{"type":"map","values":["null",{"type":"enum","name":"E","symbols":["A","B"]}]}` + "\x00\x02\x02a\x02\x04\x00")
	f.Fuzz(func(t *testing.T, def string) {
		payload := []byte(def)
		if i := strings.IndexByte(def, 0); i >= 0 {
			def, payload = def[:i], payload[i+1:]
		}
		s, err := Parse(def)
		if err != nil {
			return
		}
		b, err := s.MarshalJSON()
		if err == nil && !json.Valid(b) {
			t.Fatalf("the JSON of %q is not valid: %s", def, b)
		}
		_ = s.String()
		_, _ = s.Validate(payload)
		var v any
		if s.Unmarshal(payload, &v) == nil {
			_, _ = s.Marshal(v)
		}
		if s.Type() == Record {
			_, _ = s.Marshal(map[string]any{})
		}
	})
}

// The empty union is a type with no values: a field of it can have no
// default (the fuzzer's first crasher indexed its first branch), and no
// value of it can be encoded or decoded.
func TestEmptyUnion(t *testing.T) {
	for _, def := range []string{
		`{"type":"record","name":"A","fields":[{"name":"A","type":[],"default":{}}]}`,
		`{"type":"record","name":"A","fields":[{"name":"A","type":[],"default":null}]}`,
		`{"type":"record","name":"A","fields":[{"name":"A","type":{"type":"array","items":[]},"default":[1]}]}`,
		`{"type":"record","name":"A","fields":[{"name":"A","type":{"type":"map","values":[]},"default":{"k":null}}]}`,
		`{"type":"record","name":"A","fields":[{"name":"r","type":{"type":"record","name":"B","fields":[{"name":"u","type":[]}]},"default":{"u":1}}]}`,
	} {
		if _, err := Parse(def); err == nil {
			t.Errorf("%s: no error", def)
		}
	}
	s := mustParse(t, `{"type":"record","name":"A","fields":[{"name":"u","type":[]},`+
		`{"name":"a","type":{"type":"array","items":[]},"default":[]}]}`)
	if _, err := s.Marshal(map[string]any{"u": nil}); err == nil {
		t.Error("a value of the empty union was encoded")
	}
	if _, err := s.Marshal(map[string]any{"u": map[string]any{"int": 1}}); err == nil {
		t.Error("a value of the empty union was encoded")
	}
	var v any
	if err := s.Unmarshal([]byte{0, 0}, &v); !errors.Is(err, ErrMalformed) {
		t.Errorf("decoding branch 0 of the empty union: %v, want ErrMalformed", err)
	}
	if _, err := s.Validate([]byte{0}); !errors.Is(err, ErrMalformed) {
		t.Errorf("validating branch 0 of the empty union: %v, want ErrMalformed", err)
	}
	arr := mustParse(t, `{"type":"array","items":[]}`)
	if b, err := arr.Marshal([]any{}); err != nil || !bytes.Equal(b, []byte{0}) {
		t.Errorf("the empty array of the empty union: % x, %v", b, err)
	}
	if _, err := arr.Validate([]byte{2, 0, 0}); !errors.Is(err, ErrMalformed) {
		t.Errorf("an item of the empty union: %v, want ErrMalformed", err)
	}
}

// The binary encoding of the specification: zig-zag varints, little-endian
// floats, length-prefixed strings, records as their fields in order,
// unions as branch index and value, arrays and maps in blocks (a negative
// count and the block's byte size, then a zero count).
func TestMarshalBytes(t *testing.T) {
	type rec struct {
		A int64  `avro:"a"`
		B string `avro:"b"`
	}
	s := "x"
	cases := []struct {
		def  string
		v    any
		want []byte
	}{
		{`"long"`, int64(0), []byte{0}},
		{`"long"`, int64(-1), []byte{1}},
		{`"long"`, int64(1), []byte{2}},
		{`"long"`, int64(-64), []byte{0x7f}},
		{`"long"`, int64(64), []byte{0x80, 0x01}},
		{`"long"`, int64(math.MinInt64), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{`"string"`, "foo", []byte{6, 'f', 'o', 'o'}},
		{`"float"`, float32(1), []byte{0, 0, 0x80, 0x3f}},
		{`"double"`, 2.0, []byte{0, 0, 0, 0, 0, 0, 0, 0x40}},
		{`"boolean"`, true, []byte{1}},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`, rec{A: 1, B: "ab"}, []byte{2, 4, 'a', 'b'}},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`, &rec{A: -1}, []byte{1, 0}},
		{`["null","string"]`, (*string)(nil), []byte{0}},
		{`["null","string"]`, &s, []byte{2, 2, 'x'}},
		{`["null","string"]`, "x", []byte{2, 2, 'x'}},
		{`["string","null"]`, map[string]any{"null": nil}, []byte{2}},
		{`{"type":"array","items":"long"}`, []int64{3, 27}, []byte{3, 4, 6, 0x36, 0}},
		{`{"type":"array","items":"null"}`, []any{nil, nil}, []byte{4, 0}},
		{`{"type":"array","items":"long"}`, []int64(nil), []byte{0}},
		{`{"type":"map","values":"int"}`, map[string]int{"b": 1, "a": 2}, []byte{3, 0x0c, 2, 'a', 4, 2, 'b', 2, 0}},
		{`{"type":"enum","name":"E","symbols":["A","B"]}`, "B", []byte{2}},
		{`{"type":"fixed","name":"F","size":2}`, [2]byte{9, 8}, []byte{9, 8}},
		{`{"type":"long","logicalType":"timestamp-millis"}`, time.UnixMilli(1000).UTC(), []byte{0xd0, 0x0f}},
		{`{"type":"int","logicalType":"date"}`, time.Unix(2*86400, 0), []byte{4}},
		{`{"type":"record","name":"D","fields":[{"name":"z","type":["null","int"],"default":null},{"name":"y","type":"int","default":3}]}`,
			struct{}{}, []byte{0, 6}},
	}
	for _, c := range cases {
		got, err := mustParse(t, c.def).Marshal(c.v)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s %v: % x, %v; want % x", c.def, c.v, got, err, c.want)
		}
	}
}

func TestMarshalRefuses(t *testing.T) {
	cases := []struct {
		def string
		v   any
	}{
		{`"string"`, 1}, {`"int"`, int64(math.MaxInt32 + 1)}, {`"int"`, "1"}, {`"bytes"`, "s"},
		{`{"type":"enum","name":"E","symbols":["A"]}`, "Z"}, {`{"type":"fixed","name":"F","size":2}`, [3]byte{}},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, map[string]any{}},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, (*struct{ A int })(nil)},
		{`["int","string"]`, 1.5}, {`["int","string"]`, map[string]any{"long": 1}},
		{`["int","string"]`, map[string]any{"int": 1, "string": "s"}},
	}
	for _, c := range cases {
		if b, err := mustParse(t, c.def).Marshal(c.v); err == nil {
			t.Errorf("%s %#v: encoded % x", c.def, c.v, b)
		}
	}
}

// Decoding into an interface builds the value's Go form: records as
// map[string]any, int as int, long as int64, unions of primitives as the
// value itself, other unions as {"branch": value}.
func TestUnmarshalIntoInterface(t *testing.T) {
	s := mustParse(t, `{"type":"record","name":"R","namespace":"n","fields":[{"name":"i","type":"int"},{"name":"l","type":"long"},`+
		`{"name":"u","type":["null","string"]},{"name":"r","type":["null","R"]},{"name":"a","type":{"type":"array","items":"float"}}]}`)
	in := map[string]any{"i": 1, "l": int64(2), "u": "s", "r": map[string]any{"n.R": map[string]any{"i": 3, "l": int64(4),
		"u": nil, "r": nil, "a": []float32{}}}, "a": []float32{1.5}}
	data, err := s.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := s.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": 1, "l": int64(2), "u": "s", "r": map[string]any{"n.R": map[string]any{"i": 3, "l": int64(4),
		"u": nil, "r": nil, "a": []any{}}}, "a": []any{float32(1.5)}}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("decoded %#v\nwant %#v", out, want)
	}
}

// Structs: fields by tag or name (tags first, outer before embedded),
// `avro:"-"` never; fields the schema lacks are untouched, fields the
// struct lacks are skipped; a null union branch is a nil pointer.
func TestUnmarshalIntoStruct(t *testing.T) {
	type inner struct {
		Deep string `avro:"deep"`
	}
	type target struct {
		inner
		Tagged  int32   `avro:"x"`
		X       int32   // loses to the tag
		Name    string  // by name
		Skipped string  `avro:"-"`
		Opt     *int64  `avro:"opt"`
		Extra   string  `avro:"extra"`
		Ignored float64 `avro:"-"`
	}
	s := mustParse(t, `{"type":"record","name":"T","fields":[{"name":"x","type":"int"},{"name":"Name","type":"string"},`+
		`{"name":"Skipped","type":"string"},{"name":"opt","type":["null","long"]},{"name":"gone","type":{"type":"map","values":"int"}},`+
		`{"name":"deep","type":"string"}]}`)
	data, err := s.Marshal(map[string]any{"x": 7, "Name": "n", "Skipped": "s", "opt": nil, "gone": map[string]any{"k": 1}, "deep": "d"})
	if err != nil {
		t.Fatal(err)
	}
	one := int64(1)
	out := target{Extra: "kept", Opt: &one, X: 9}
	if err := s.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	want := target{inner: inner{Deep: "d"}, Tagged: 7, X: 9, Name: "n", Extra: "kept"}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("decoded %+v, want %+v", out, want)
	}
}

// Every length and count is checked against the bytes present before
// anything is allocated for it; a malformed payload is ErrShort or
// ErrMalformed.
func TestUnmarshalBounds(t *testing.T) {
	cases := []struct {
		def  string
		data []byte
		want error
	}{
		{`"string"`, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, ErrShort},
		{`"bytes"`, []byte{9}, ErrMalformed}, // negative length
		{`{"type":"array","items":"long"}`, []byte{0x80, 0x80, 0x80, 0x80, 0x10}, ErrMalformed},
		{`{"type":"array","items":"null"}`, []byte{0x80, 0x80, 0x80, 0x80, 0x10}, ErrMalformed},
		{`{"type":"map","values":"null"}`, []byte{0x80, 0x80, 0x80, 0x01}, ErrMalformed}, // 1<<20 entries of at least a byte each
		{`{"type":"array","items":"long"}`, []byte{3, 0x7e, 2}, ErrMalformed},            // block size larger than the rest
		{`{"type":"fixed","name":"F","size":1073741824}`, []byte{1}, ErrShort},
		{`["null","int"]`, []byte{4}, ErrMalformed},
		{`{"type":"enum","name":"E","symbols":["A"]}`, []byte{2}, ErrMalformed},
		{`"boolean"`, []byte{2}, ErrMalformed},
		{`"int"`, []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, ErrMalformed}, // beyond 32 bits
		{`"long"`, bytes.Repeat([]byte{0xff}, 11), ErrMalformed},
		{`"double"`, []byte{1, 2, 3}, ErrShort},
		{`{"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]}`, append(bytes.Repeat([]byte{2}, MaxDepth), 0), ErrMalformed},
	}
	for _, c := range cases {
		s := mustParse(t, c.def)
		var generic any
		var before, after runtimeMem
		before.read()
		err := s.Unmarshal(c.data, &generic)
		after.read()
		if !errors.Is(err, c.want) {
			t.Errorf("%s % x: %v, want %v", c.def, c.data, err, c.want)
		}
		if _, err := s.Validate(c.data); !errors.Is(err, c.want) {
			t.Errorf("%s % x: Validate %v, want %v", c.def, c.data, err, c.want)
		}
		if grew := after.total - before.total; grew > 1<<20 {
			t.Errorf("%s: decoding allocated %d bytes", c.def, grew)
		}
	}
}

func TestUnmarshalTargets(t *testing.T) {
	s := mustParse(t, `"long"`)
	data, _ := s.Marshal(int64(300))
	var small int8
	if err := s.Unmarshal(data, &small); err == nil {
		t.Error("300 fit an int8")
	}
	var str string
	if err := s.Unmarshal(data, &str); err == nil {
		t.Error("a long decoded into a string")
	}
	if err := s.Unmarshal(data, nil); err == nil {
		t.Error("nil target accepted")
	}
	var p **int64
	if err := s.Unmarshal(data, &p); err != nil || **p != 300 {
		t.Errorf("pointer target: %v", err)
	}
	ts := mustParse(t, `{"type":"long","logicalType":"timestamp-micros"}`)
	when := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	data, _ = ts.Marshal(when)
	var got time.Time
	if err := ts.Unmarshal(data, &got); err != nil || !got.Equal(when) {
		t.Errorf("timestamp %v, %v", got, err)
	}
}

// Items without content (nulls) cost nothing in the payload: their count
// and the memory of the Go values they decode into are both capped.
func TestUnmarshalEmptyItemsIntoLargeValues(t *testing.T) {
	s := mustParse(t, `{"type":"array","items":"null"}`)
	data := []byte{0x80, 0x80, 0x40, 0} // 1<<19 nulls
	var big [][128]byte
	var before, after runtimeMem
	before.read()
	err := s.Unmarshal(data, &big)
	after.read()
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("%v, want ErrMalformed", err)
	}
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("decoding allocated %d bytes", grew)
	}
	var small []struct{}
	if err := s.Unmarshal(data, &small); err != nil || len(small) != 1<<19 {
		t.Fatalf("%d empty items, %v", len(small), err)
	}
}

type hiddenInner struct {
	Deep string `avro:"deep"`
}

// Fields reached through a nil unexported embedded pointer cannot be set:
// they are skipped on decoding and missing on encoding (their default is
// written), never a panic.
func TestStructFieldsThroughUnexportedPointers(t *testing.T) {
	type outer struct {
		*hiddenInner
		Top string `avro:"top"`
	}
	s := mustParse(t, `{"type":"record","name":"O","fields":[{"name":"top","type":"string"},{"name":"deep","type":"string","default":"d"}]}`)
	data, err := s.Marshal(outer{Top: "t"})
	if err != nil || !bytes.Equal(data, []byte{2, 't', 2, 'd'}) {
		t.Fatalf("% x, %v", data, err)
	}
	var out outer
	if err := s.Unmarshal(data, &out); err != nil || out.Top != "t" || out.hiddenInner != nil {
		t.Fatalf("%+v, %v", out, err)
	}
	set := outer{hiddenInner: &hiddenInner{Deep: "old"}} // promoted through a non-nil pointer: set, as encoding/json does
	if err := s.Unmarshal(data, &set); err != nil || set.Top != "t" || set.Deep != "d" {
		t.Fatalf("%+v, %v", set, err)
	}
}

// Decimals are *big.Rat values stored as value×10^scale in big-endian
// two's complement: as few bytes as hold it for bytes, the fixed's size
// for fixed (a value too large for it is refused).
func TestDecimals(t *testing.T) {
	type dec struct {
		B *big.Rat `avro:"b"`
		F *big.Rat `avro:"f"`
		U *big.Rat `avro:"u"`
	}
	s := mustParse(t, `{"type":"record","name":"D","fields":[
	 {"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
	 {"name":"f","type":{"type":"fixed","name":"F2","size":2,"logicalType":"decimal","precision":4,"scale":1}},
	 {"name":"u","type":["null",{"type":"bytes","logicalType":"decimal","precision":4}]}]}`)
	in := dec{B: big.NewRat(-12345, 100), F: big.NewRat(25, 2), U: big.NewRat(128, 1)}
	data, err := s.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// -12345 = 0xcfc7; 125 = 0x007d; branch 1, 128 = 0x0080.
	if want := []byte{4, 0xcf, 0xc7, 0x00, 0x7d, 2, 4, 0x00, 0x80}; !bytes.Equal(data, want) {
		t.Fatalf("% x, want % x", data, want)
	}
	var out dec
	if err := s.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.B.Cmp(in.B) != 0 || out.F.Cmp(in.F) != 0 || out.U.Cmp(in.U) != 0 {
		t.Fatalf("decoded %v %v %v", out.B, out.F, out.U)
	}
	// A negative value too large for the fixed was written as a positive
	// one (-4000.0 as 25536 = 0x63c0) before its two's complement was
	// checked; the smallest that fits, -3276.8 (0x8000), round-trips.
	for _, f := range []*big.Rat{big.NewRat(1<<20, 1), big.NewRat(-4000, 1), big.NewRat(-32769, 10), big.NewRat(-1<<20, 1)} {
		if b, err := s.Marshal(dec{B: in.B, F: f, U: nil}); err == nil {
			t.Errorf("%v: a decimal too large for its fixed was encoded: % x", f, b)
		}
	}
	edge := dec{B: in.B, F: big.NewRat(-32768, 10)}
	data, err = s.Marshal(edge)
	if err != nil {
		t.Fatal(err)
	}
	out = dec{}
	if err := s.Unmarshal(data, &out); err != nil || out.F.Cmp(edge.F) != 0 {
		t.Fatalf("%v decoded as %v, %v", edge.F, out.F, err)
	}
}

// A schema nested as deep as a JSON document can be (encoding/json stops
// at 10,000 levels) parses, and is written, without exhausting anything;
// a value of it nested past MaxDepth is refused.
func TestDeeplyNestedSchema(t *testing.T) {
	const levels = 4000
	def := strings.Repeat(`{"type":"array","items":`, levels) + `"null"` + strings.Repeat("}", levels)
	s := mustParse(t, def)
	if b, err := s.MarshalJSON(); err != nil || !json.Valid(b) {
		t.Fatalf("MarshalJSON: %v", err)
	}
	if got := s.String(); len(got) < levels*len(`{"type":"array","items":}`) {
		t.Fatalf("canonical form of %d bytes", len(got))
	}
	payload := bytes.Repeat([]byte{2}, levels) // one item per level
	if _, err := s.Validate(payload); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a value nested %d deep: %v, want ErrMalformed", levels, err)
	}
	var v any
	if err := s.Unmarshal(payload, &v); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a value nested %d deep: %v, want ErrMalformed", levels, err)
	}
}
