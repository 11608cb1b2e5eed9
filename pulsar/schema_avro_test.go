package pulsar

import (
	"errors"
	"runtime"
	"testing"

	"github.com/pulsargo/sdk/internal/avro"
)

const testAvroAllDef = `{"type":"record","name":"All","namespace":"t","fields":[
 {"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},
 {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"},
 {"name":"by","type":"bytes"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
 {"name":"fx","type":{"type":"fixed","name":"F","size":3}},
 {"name":"a","type":{"type":"array","items":"int"}},
 {"name":"m","type":{"type":"map","values":"string"}},
 {"name":"u","type":["null","string"]},
 {"name":"n","type":["null",{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}]}]}`

type testNode struct {
	V    int       `avro:"v"`
	Next *testNode `avro:"next"`
}

type testAll struct {
	B  bool              `avro:"b"`
	I  int32             `avro:"i"`
	L  int64             `avro:"l"`
	F  float32           `avro:"f"`
	D  float64           `avro:"d"`
	S  string            `avro:"s"`
	By []byte            `avro:"by"`
	E  string            `avro:"e"`
	Fx [3]byte           `avro:"fx"`
	A  []int32           `avro:"a"`
	M  map[string]string `avro:"m"`
	U  *string           `avro:"u"`
	N  *testNode         `avro:"n"`
}

func testAllValue() testAll {
	u := "union"
	return testAll{B: true, I: -5, L: 1 << 40, F: 1.5, D: -2.5, S: "str", By: []byte{1, 2}, E: "B", Fx: [3]byte{7, 8, 9},
		A: []int32{1, 2, 3}, M: map[string]string{"k": "v"}, U: &u, N: &testNode{V: 1, Next: &testNode{V: 2}}}
}

func TestAvroValidateAcceptsWhatTheEncoderWrites(t *testing.T) {
	s, err := NewAvroSchemaWithValidation(testAvroAllDef, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Encode(testAllValue())
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Codec.Validate(data); err != nil || n != len(data) {
		t.Fatalf("Validate: %d of %d bytes, %v", n, len(data), err)
	}
	var out testAll
	if err := s.Decode(data, &out); err != nil || out.N.Next.V != 2 || out.M["k"] != "v" || *out.U != "union" {
		t.Fatalf("decoded %+v, %v", out, err)
	}
	// Every proper prefix is refused.
	for i := range data {
		if err := s.Validate(data[:i]); err == nil {
			t.Errorf("prefix of %d bytes accepted", i)
		}
	}
}

// Payloads whose lengths and counts claim more than they hold are refused
// before the decoder allocates what they claim.
func TestAvroDecodeRefusesClaimsLargerThanThePayload(t *testing.T) {
	zigzag := func(v int64) []byte {
		u := uint64(v<<1) ^ uint64(v>>63)
		var b []byte
		for u >= 0x80 {
			b = append(b, byte(u)|0x80)
			u >>= 7
		}
		return append(b, byte(u))
	}
	cases := []struct {
		name, def string
		data      []byte
	}{
		{"string length", `"string"`, zigzag(1 << 40)},
		{"bytes negative length", `"bytes"`, zigzag(-5)},
		{"array count", `{"type":"array","items":"long"}`, zigzag(1 << 50)},
		{"array block size", `{"type":"array","items":"long"}`, append(zigzag(-2), zigzag(1<<40)...)},
		{"null items", `{"type":"array","items":"null"}`, zigzag(1 << 40)},
		{"map count", `{"type":"map","values":"null"}`, zigzag(1 << 40)},
		{"fixed", `{"type":"fixed","name":"Big","size":1073741824}`, []byte{1, 2, 3}},
		{"union branch", `["null","int"]`, zigzag(7)},
		{"enum symbol", `{"type":"enum","name":"E","symbols":["A"]}`, zigzag(3)},
		{"boolean", `"boolean"`, []byte{2}},
		{"varint", `"long"`, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"int varint", `"int"`, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	}
	for _, c := range cases {
		s, err := NewAvroSchemaWithValidation(c.def, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var out any
		err = s.Decode(c.data, &out)
		runtime.ReadMemStats(&after)
		var se *SchemaError
		if !errors.As(err, &se) || se.Op != "decode" {
			t.Errorf("%s: %v, want a decode *SchemaError", c.name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: decoding allocated %d bytes", c.name, grew)
		}
	}
}

// Data nested deeper than avro.MaxDepth is refused before the decoder
// recurses into it (a recursive schema lets 2 bytes make a level).
func TestAvroDecodeRefusesDeepNesting(t *testing.T) {
	s, err := NewAvroSchemaWithValidation(`{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	deep := make([]byte, 0, 2*avro.MaxDepth+1)
	for range avro.MaxDepth {
		deep = append(deep, 2) // union branch 1: another L
	}
	deep = append(deep, 0)
	var out any
	var se *SchemaError
	if err := s.Decode(deep, &out); !errors.As(err, &se) {
		t.Fatalf("deep value: %v", err)
	}
	shallow := []byte{2, 2, 0}
	if err := s.Decode(shallow, &out); err != nil {
		t.Fatalf("shallow value: %v", err)
	}
}

func FuzzAvroDecode(f *testing.F) {
	s, err := NewAvroSchemaWithValidation(testAvroAllDef, nil)
	if err != nil {
		f.Fatal(err)
	}
	seed, _ := s.Encode(testAllValue())
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		var out testAll
		err := s.Decode(data, &out)
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SchemaError", err)
			}
		}
		var generic any
		_ = s.Decode(data, &generic)
		_ = s.Validate(data)
	})
}
