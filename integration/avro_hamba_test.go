package integration

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"

	"github.com/pulsargo/sdk/internal/avro"
)

// The official client's Avro library (hamba/avro, which it brings into
// this module) is the reference for pulsargo's own: the JSON the official
// client sends for a schema, which definitions it refuses, and the bytes
// of each value.

// avroDefinitions are schema documents as applications and Pulsar's Java
// client write them: every type, attribute, default and logical type.
var avroDefinitions = []string{
	`"string"`, `string`, `"null"`, `["null","int"]`, `{"type":"int"}`, `{"type":"null","x":1}`,
	`{"type":"record","name":"Example","namespace":"test","fields":[{"name":"ID","type":"int"},{"name":"Name","type":"string"}]}`,
	`{"type":"record","name":"User","namespace":"it","doc":"a <user> & \"co\"\n\u0008\u2028 é","aliases":["Person","other.Human"],` +
		`"fields":[{"name":"name","type":{"type":"string","avro.java.string":"String"},"doc":"the name","aliases":["n"],"default":"anon"},` +
		`{"name":"age","type":"int","default":7,"order":"descending"},{"name":"l","type":"long","default":12345678901},` +
		`{"name":"f","type":"float","default":1.5},{"name":"d","type":"double","default":1e-7},{"name":"big","type":"double","default":1e21},` +
		`{"name":"b","type":"boolean","default":true},{"name":"by","type":"bytes","default":"\u00ff\u0001"},` +
		`{"name":"fx","type":{"type":"fixed","name":"F4","size":4,"doc":"fixed doc"},"default":"ab"},` +
		`{"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"],"default":"GREEN","doc":"colors"},"default":"RED"},` +
		`{"name":"a","type":{"type":"array","items":"int","x-prop":[1,2.5,"s",null,{"k":true}]},"default":[1,2]},` +
		`{"name":"m","type":{"type":"map","values":"long"},"default":{"z":1,"a":2}},` +
		`{"name":"u","type":["null","string"],"default":null},{"name":"u2","type":["string","null"],"default":"x"},` +
		`{"name":"c","type":"Color"},{"name":"c2","type":"it.Color"},{"name":"fx2","type":"F4"},` +
		`{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"tu","type":{"type":"long","logicalType":"timestamp-micros"}},` +
		`{"name":"dt","type":{"type":"int","logicalType":"date"}},{"name":"tm","type":{"type":"int","logicalType":"time-millis"}},` +
		`{"name":"uuid","type":{"type":"string","logicalType":"uuid"}},{"name":"unk","type":{"type":"string","logicalType":"nope","z":0,"a":"b"}},` +
		`{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},` +
		`{"name":"dec0","type":{"type":"bytes","logicalType":"decimal","precision":4}},` +
		`{"name":"badDec","type":{"type":"bytes","logicalType":"decimal","precision":0,"scale":2}},` +
		`{"name":"fdec","type":{"type":"fixed","name":"D8","size":8,"logicalType":"decimal","precision":18,"scale":3}},` +
		`{"name":"fdecBig","type":{"type":"fixed","name":"D2","size":2,"logicalType":"decimal","precision":5}},` +
		`{"name":"dur","type":{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}},` +
		`{"name":"rec","type":{"type":"record","name":"Inner","namespace":"other","fields":[{"name":"v","type":"int","default":1},{"name":"w","type":["null","Inner"],"default":null}]},` +
		`"default":{"v":5}},{"name":"inner2","type":"other.Inner"},{"name":"p","type":"int","custom":{"b":1,"a":[true]}}],` +
		`"zprop":"last","aprop":"first"}`,
	`{"type":"error","name":"Oops","fields":[]}`,
	`{"type":"record","name":"a.b.C","namespace":"ignored","fields":[{"name":"x","type":{"type":"enum","name":"E","symbols":["A"]}},{"name":"y","type":"a.b.E"}]}`,
	`{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}`,
	`{"type":"array","items":{"type":"map","values":["null","double",{"type":"record","name":"R","fields":[]}]}}`,
	`{"type":["null","string"]}`,
	// refused
	`{"type":"record","name":"Example","fields":[{"name":"ID","type":"int64"}]}`,
	`"{"type":"record"`, `{"type":"fixed","name":"f"}`, `{"type":"nope"}`, `{"type":"record","name":"X"}`,
	`{"type":"record","name":"1X","fields":[]}`, `{"type":"enum","name":"E","symbols":[]}`, `{"type":"enum","name":"E","symbols":["A","A"]}`,
	`{"type":"enum","name":"E","symbols":["A"],"default":"B"}`, `["int","int"]`, `["int",["null"]]`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":"int","default":"s"}]}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":"int","order":"up"}]}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":"Y"}]}`, `{"type":"fixed","name":"F","size":-1}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":"bytes","default":"\u0100"}]}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":["null","int"],"default":1}]}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":{"type":"record","name":"Y","fields":[{"name":"b","type":"bytes","default":"x"}]},"default":{}}]}`,
	`{"type":"record","name":"X","fields":[{"name":"a","type":"int"}],"doc":5}`,
	`{"type":"record","name":"X","fields":[],"aliases":"A"}`,
	strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
}

func TestAvroSchemaJSONIsTheOfficialClients(t *testing.T) {
	for _, def := range avroDefinitions {
		want, herr := hamba.ParseWithCache(def, "", &hamba.SchemaCache{})
		got, err := avro.Parse(def)
		if (herr == nil) != (err == nil) {
			t.Errorf("%.80s: official library error %v, ours %v", def, herr, err)
			continue
		}
		if herr != nil {
			continue
		}
		wantJSON, herr := json.Marshal(want)
		gotJSON, err := json.Marshal(got)
		if herr != nil || err != nil {
			t.Errorf("%.80s: marshal: %v, %v", def, herr, err)
			continue
		}
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%.80s:\n got %s\nwant %s", def, gotJSON, wantJSON)
		}
	}
}

type avroInner struct {
	V int        `avro:"v"`
	W *avroInner `avro:"w"`
}

type avroEmbedded struct {
	Tail string `avro:"tail"`
}

type avroValues struct {
	avroEmbedded
	B    bool              `avro:"b"`
	I    int32             `avro:"i"`
	L    int64             `avro:"l"`
	F    float32           `avro:"f"`
	D    float64           `avro:"d"`
	S    string            `avro:"s"`
	By   []byte            `avro:"by"`
	E    string            `avro:"e"`
	Fx   [3]byte           `avro:"fx"`
	A    []int32           `avro:"a"`
	M    map[string]string `avro:"m"`
	U    *string           `avro:"u"`
	N    *avroInner        `avro:"n"`
	Ts   time.Time         `avro:"ts"`
	Tu   time.Time         `avro:"tu"`
	Dt   time.Time         `avro:"dt"`
	Tm   time.Duration     `avro:"tm"`
	Name string            // no tag: by field name
	Skip string            `avro:"-"`
}

const avroValuesDef = `{"type":"record","name":"All","namespace":"t","fields":[
 {"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},
 {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"},
 {"name":"by","type":"bytes"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
 {"name":"fx","type":{"type":"fixed","name":"F","size":3}},
 {"name":"a","type":{"type":"array","items":"int"}},
 {"name":"m","type":{"type":"map","values":"string"}},
 {"name":"u","type":["null","string"]},
 {"name":"n","type":["null",{"type":"record","name":"Inner","fields":[{"name":"v","type":"int"},{"name":"w","type":["null","Inner"]}]}]},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"tu","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"dt","type":{"type":"int","logicalType":"date"}},
 {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
 {"name":"Name","type":"string"},{"name":"tail","type":"string"},
 {"name":"missing","type":["null","int"],"default":null},{"name":"missing2","type":"long","default":42}]}`

const avroDecimalDef = `{"type":"record","name":"Dec","fields":[
 {"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"f","type":{"type":"fixed","name":"F8","size":8,"logicalType":"decimal","precision":18,"scale":3}},
 {"name":"u","type":["null",{"type":"bytes","logicalType":"decimal","precision":4}]},
 {"name":"z","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":1}}]}`

type avroDecimals struct {
	B *big.Rat `avro:"b"`
	F *big.Rat `avro:"f"`
	U *big.Rat `avro:"u"`
	Z *big.Rat `avro:"z"`
}

// Values encode to the official library's bytes and each library decodes
// the other's into the same Go values.
func TestAvroValuesAreTheOfficialClients(t *testing.T) {
	u := "union"
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	full := avroValues{avroEmbedded: avroEmbedded{Tail: "end"}, B: true, I: -5, L: 1 << 40, F: 1.5, D: -2.5, S: "str <&>",
		By: []byte{1, 2}, E: "B", Fx: [3]byte{7, 8, 9}, A: []int32{1, 2, 3}, M: map[string]string{"k": "v"}, U: &u,
		N: &avroInner{V: 1, W: &avroInner{V: 2}}, Ts: ts, Tu: ts, Dt: time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC),
		Tm: 1500 * time.Millisecond, Name: "by name"}
	cases := []struct {
		def string
		v   any
		out func() any
	}{
		{avroValuesDef, full, func() any { return &avroValues{} }},
		{avroValuesDef, &full, func() any { return &avroValues{} }},
		{`{"type":"array","items":"long"}`, make([]int64, 250), func() any { var v []int64; return &v }},
		{`{"type":"array","items":"null"}`, make([]any, 150), func() any { var v any; return &v }},
		{`{"type":"array","items":["null","string",{"type":"array","items":"int"}]}`, []any{nil, map[string]any{"string": "s"}, map[string]any{"array": []any{1, 2}}},
			func() any { var v any; return &v }},
		{avroValuesDef, map[string]any{"b": false, "i": 3, "l": int64(4), "f": float32(1), "d": 2.0, "s": "s", "by": []byte("x"),
			"e": "A", "fx": [3]byte{1, 2, 3}, "a": []any{int32(1)}, "m": map[string]any{"a": "b"},
			"u": map[string]any{"string": "x"}, "n": nil, "ts": ts, "tu": ts, "dt": ts.Truncate(24 * time.Hour), "tm": time.Second,
			"Name": "n", "tail": "t"}, func() any { var v any; return &v }},
		{`{"fields":[{"name":"id","type":"int"},{"default":null,"name":"name","type":["null","string"]}],"name":"MyAvro3","namespace":"PulsarTestCase","type":"record"}`,
			map[string]any{"id": 1, "name": map[string]any{"string": "aac"}}, func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, "s", func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, 5, func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, int64(5), func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, 2.5, func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, true, func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, []byte{9}, func() any { var v any; return &v }},
		{`["null","int","string","long","double","boolean","bytes"]`, nil, func() any { var v any; return &v }},
		{`{"type":"map","values":{"type":"array","items":"long"}}`, map[string][]int64{"one": {1, -1 << 62}}, func() any { var v map[string][]int64; return &v }},
		{`{"type":"array","items":"double"}`, []float64{}, func() any { var v []float64; return &v }},
		{`{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, []byte{0xff, 0x38}, func() any { var v any; return &v }},
		{`"string"`, strings.Repeat("long text ", 100), func() any { var v string; return &v }},
		{`{"type":"fixed","name":"F","size":2}`, [2]byte{1, 2}, func() any { var v any; return &v }},
		{avroDecimalDef, avroDecimals{B: big.NewRat(12345, 100), F: big.NewRat(-7, 2), U: big.NewRat(-128, 1), Z: new(big.Rat)},
			func() any { return &avroDecimals{} }},
		{avroDecimalDef, avroDecimals{B: big.NewRat(-1, 3), F: big.NewRat(1<<40, 1), Z: big.NewRat(255, 1)},
			func() any { return &avroDecimals{} }},
		{avroDecimalDef, map[string]any{"b": big.NewRat(1, 8), "f": big.NewRat(0, 1), "u": nil, "z": big.NewRat(-1, 100)},
			func() any { var v any; return &v }},
	}
	for i, c := range cases {
		hs, err := hamba.ParseWithCache(c.def, "", &hamba.SchemaCache{})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		ours, err := avro.Parse(c.def)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want, herr := hamba.Marshal(hs, c.v)
		got, err := ours.Marshal(c.v)
		if herr != nil || err != nil {
			t.Errorf("case %d: marshal: official %v, ours %v", i, herr, err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("case %d: bytes\n got % x\nwant % x", i, got, want)
		}
		hv, ov := c.out(), c.out()
		if err := hamba.Unmarshal(hs, want, hv); err != nil {
			t.Errorf("case %d: official unmarshal: %v", i, err)
			continue
		}
		if err := ours.Unmarshal(want, ov); err != nil {
			t.Errorf("case %d: unmarshal: %v", i, err)
			continue
		}
		if !reflect.DeepEqual(normalizeRat(ov), normalizeRat(hv)) {
			t.Errorf("case %d: decoded\n got %v\nwant %v", i, normalizeRat(ov), normalizeRat(hv))
		}
	}
}

// normalizeRat makes decoded *big.Rat values comparable (printed: their
// internal form may differ).
func normalizeRat(v any) any {
	if p, ok := v.(*avroDecimals); ok {
		// U is left out: the official library decodes ["null", decimal]
		// into a *big.Rat as 0 (its bytes are compared all the same).
		return fmt.Sprintf("%v %v %v", p.B, p.F, p.Z)
	}
	if p, ok := v.(*any); ok {
		if m, ok := (*p).(map[string]any); ok {
			return fmt.Sprintf("%v", m)
		}
		if r, ok := (*p).(*big.Rat); ok {
			return r.RatString()
		}
	}
	return v
}

// FuzzAvroSchemaJSON: for any document, pulsargo refuses what the official
// library refuses and writes the JSON it writes. (Documents on which the
// official library panics are left out.)
//
// One difference is pulsargo's by decision: it reads a document's keys
// case-sensitively, as the Avro specification and the Java implementation
// do, where the official library (decoding with mapstructure) also takes
// "nAme" for "name". A document with such a key is checked as the same
// document without it: pulsargo must treat the key as any other unknown
// attribute (parse or refuse it alike), and the document without it is
// compared with the official library.
func FuzzAvroSchemaJSON(f *testing.F) {
	for _, def := range avroDefinitions {
		if len(def) < 4096 {
			f.Add(def)
		}
	}
	f.Add(caseFoldedKeys)
	f.Fuzz(func(t *testing.T, def string) {
		if hugeFixed.MatchString(def) {
			return // the official library allocates a fixed default's size
		}
		if spec, ok := withoutCaseFoldedKeys(def); ok {
			_, err := avro.Parse(def)
			_, serr := avro.Parse(spec)
			if (err == nil) != (serr == nil) {
				t.Fatalf("%q: ours %v, but without its keys that differ from Avro's by case only %v (%q)", def, err, serr, spec)
			}
			def = spec
		}
		want, herr, panicked := hambaParse(def)
		if panicked {
			return
		}
		got, err := avro.Parse(def)
		if (herr == nil) != (err == nil) {
			t.Fatalf("%q: official library error %v, ours %v", def, herr, err)
		}
		if herr != nil {
			return
		}
		wantJSON, herr := json.Marshal(want)
		gotJSON, err := json.Marshal(got)
		if (herr == nil) != (err == nil) || string(gotJSON) != string(wantJSON) {
			t.Fatalf("%q:\n got %s (%v)\nwant %s (%v)", def, gotJSON, err, wantJSON, herr)
		}
	})
}

// caseFoldedKeys is the document the differential fuzzer first failed on:
// the official library takes "nAme" and "tYpe" for "name" and "type".
const caseFoldedKeys = `{"type":"record","nAme":"A","fields":[{"nAme":"A","tYpe":"int","000":""}]}`

// pulsargo's Avro keys are case-sensitive: a document whose keys differ
// from Avro's by case only is refused where the official library takes it,
// and such a key next to the right one is a property.
func TestAvroKeysAreCaseSensitive(t *testing.T) {
	if _, err := hamba.ParseWithCache(caseFoldedKeys, "", &hamba.SchemaCache{}); err != nil {
		t.Fatalf("the official library refuses %s now (%v): the compatibility note is out of date", caseFoldedKeys, err)
	}
	if _, err := avro.Parse(caseFoldedKeys); err == nil {
		t.Fatalf("%s parsed: its keys were matched ignoring case", caseFoldedKeys)
	}
	s, err := avro.Parse(`{"type":"record","name":"A","NAME":"B","fields":[{"name":"a","type":"int","Type":"long"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"name":"A","type":"record","fields":[{"name":"a","type":"int","Type":"long"}],"NAME":"B"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	spec, ok := withoutCaseFoldedKeys(caseFoldedKeys)
	if !ok || spec != `{"fields":[{"000":""}],"type":"record"}` {
		t.Fatalf("withoutCaseFoldedKeys: %q, %v", spec, ok)
	}
}

// avroKeys are the attributes the Avro specification gives a meaning, as
// the official library reads them ignoring case.
var avroKeys = []string{"type", "name", "namespace", "aliases", "doc", "fields", "default", "order",
	"symbols", "items", "values", "size", "logicalType", "precision", "scale"}

// withoutCaseFoldedKeys returns def, a JSON document, without the keys of
// its schemas (not of defaults or other properties' values) that differ
// from one of avroKeys by case only; ok is false when it has none (or is
// not JSON).
func withoutCaseFoldedKeys(def string) (string, bool) {
	d := json.NewDecoder(strings.NewReader(def))
	d.UseNumber() // numbers written back as they were
	var doc any
	if d.Decode(&doc) != nil || d.More() {
		return "", false
	}
	if !dropCaseFolded(doc, 0) {
		return "", false
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// dropCaseFolded removes the case-folded keys of schema v and of the
// schemas in it, reporting whether there were any.
func dropCaseFolded(v any, depth int) bool {
	if depth > 200 {
		return false
	}
	dropped := false
	switch x := v.(type) {
	case []any: // a union
		for _, b := range x {
			dropped = dropCaseFolded(b, depth+1) || dropped
		}
	case map[string]any:
		for k := range x {
			for _, a := range avroKeys {
				if k != a && strings.EqualFold(k, a) {
					delete(x, k)
					dropped = true
				}
			}
		}
		for _, k := range []string{"type", "items", "values"} {
			if c, ok := x[k]; ok {
				dropped = dropCaseFolded(c, depth+1) || dropped
			}
		}
		if fields, ok := x["fields"].([]any); ok {
			for _, fl := range fields {
				dropped = dropCaseFolded(fl, depth+1) || dropped
			}
		}
	}
	return dropped
}

var hugeFixed = regexp.MustCompile(`"size"\s*:\s*[-+0-9.eE]{6,}`)

func hambaParse(def string) (s hamba.Schema, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	s, err = hamba.ParseWithCache(def, "", &hamba.SchemaCache{})
	return s, err, false
}

// FuzzAvroDecodeAsOfficial: a payload both libraries decode gives the same
// value (pulsargo refuses more: booleans other than 0 and 1, lengths and
// counts beyond the payload).
func FuzzAvroDecodeAsOfficial(f *testing.F) {
	hs, err := hamba.ParseWithCache(avroValuesDef, "", &hamba.SchemaCache{})
	if err != nil {
		f.Fatal(err)
	}
	ours, err := avro.Parse(avroValuesDef)
	if err != nil {
		f.Fatal(err)
	}
	seed, err := ours.Marshal(avroValues{E: "A", U: new(string), N: &avroInner{V: 3}, Name: "n"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		var got any
		if err := ours.Unmarshal(data, &got); err != nil {
			return
		}
		var want any
		if err := hambaUnmarshal(hs, data, &want); err != nil {
			t.Fatalf("% x: ours decoded %v, the official library failed: %v", data, got, err)
		}
		// Compared as printed: NaN equals NaN, maps print sorted.
		if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); g != w {
			t.Fatalf("% x:\n got %s\nwant %s", data, g, w)
		}
	})
}

func hambaUnmarshal(s hamba.Schema, data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return hamba.Unmarshal(s, data, v)
}
