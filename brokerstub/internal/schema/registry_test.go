package schema

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// memStore is a Store for tests.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) PutSchemas(id string, blob []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if blob == nil {
		delete(s.m, id)
	} else {
		s.m[id] = append([]byte{}, blob...)
	}
	return nil
}

func (s *memStore) GetSchemas(id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return append([]byte{}, b...), ok, nil
}

func newReg(t *testing.T, strategy Strategy) (*Registry, *memStore) {
	t.Helper()
	st := &memStore{m: map[string][]byte{}}
	return New(func() Store { return st }, time.Now, Policy{Strategy: strategy}), st
}

const (
	userV1 = `{"type":"record","name":"User","namespace":"test","fields":[{"name":"name","type":"string"}]}`
	// userV1Spaced is userV1 with other whitespace, attribute order and a doc.
	userV1Spaced = `{ "name": "User", "doc": "a user", "type": "record", "namespace": "test",
		"fields": [ { "type": "string", "name": "name" } ] }`
	userAgeDefault   = `{"type":"record","name":"User","namespace":"test","fields":[{"name":"name","type":"string"},{"name":"age","type":"int","default":0}]}`
	userAgeNoDefault = `{"type":"record","name":"User","namespace":"test","fields":[{"name":"name","type":"string"},{"name":"age","type":"int"}]}`
	userNameLong     = `{"type":"record","name":"User","namespace":"test","fields":[{"name":"name","type":"long"}]}`
	userEmpty        = `{"type":"record","name":"User","namespace":"test","fields":[]}`
)

func avro(def string) Schema { return Schema{Type: Avro, Data: []byte(def)} }

func mustAdd(t *testing.T, r *Registry, id string, s Schema) int64 {
	t.Helper()
	v, err := r.AddSchema(id, s)
	if err != nil {
		t.Fatalf("AddSchema(%s): %v", s.Data, err)
	}
	return v
}

func TestSchemaVersionsAndSameSchema(t *testing.T) {
	r, _ := newReg(t, Undefined) // FULL
	if v := mustAdd(t, r, "p/ns/t", avro(userV1)); v != 0 {
		t.Fatalf("first version = %d, want 0", v)
	}
	// The same Avro schema written differently is the same schema.
	if v := mustAdd(t, r, "p/ns/t", avro(userV1Spaced)); v != 0 {
		t.Fatalf("same schema re-registered as %d, want 0", v)
	}
	// Properties do not count in Pulsar's comparison.
	withProps := avro(userV1)
	withProps.Props = map[string]string{"k": "v"}
	if v := mustAdd(t, r, "p/ns/t", withProps); v != 0 {
		t.Fatalf("same schema with properties registered as %d, want 0", v)
	}
	if v := mustAdd(t, r, "p/ns/t", avro(userAgeDefault)); v != 1 {
		t.Fatalf("compatible new schema = %d, want 1", v)
	}
	// An old version is found again, not registered a third time.
	if v := mustAdd(t, r, "p/ns/t", avro(userV1)); v != 0 {
		t.Fatalf("old version re-registered as %d, want 0", v)
	}
	got, err := r.Get("p/ns/t", -1)
	if err != nil || got.Version != 1 || string(got.Schema.Data) != userAgeDefault {
		t.Fatalf("latest = %+v, %v", got, err)
	}
	got, err = r.Get("p/ns/t", 0)
	if err != nil || string(got.Schema.Data) != userV1 {
		t.Fatalf("version 0 = %+v, %v", got, err)
	}
	for _, v := range []int64{2, 1 << 40} {
		if _, err := r.Get("p/ns/t", v); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(%d) = %v, want ErrNotFound", v, err)
		}
	}
	if _, err := r.Get("p/ns/other", -1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of unknown id = %v, want ErrNotFound", err)
	}
}

func TestSchemaStrategies(t *testing.T) {
	cases := []struct {
		strategy Strategy
		from     []string // registered in order; all must be accepted
		to       string
		ok       bool
	}{
		// BACKWARD: the new schema reads old data.
		{Backward, []string{userV1}, userAgeDefault, true},
		{Backward, []string{userV1}, userAgeNoDefault, false},
		{Backward, []string{userAgeDefault}, userV1, true}, // a removed field is skipped
		{Backward, []string{userV1}, userNameLong, false},
		// FORWARD: old schemas read new data.
		{Forward, []string{userV1}, userAgeNoDefault, true},
		{Forward, []string{userAgeNoDefault}, userV1, false},
		{Forward, []string{userV1}, userEmpty, false},
		// FULL: both ways.
		{Full, []string{userV1}, userAgeDefault, true},
		{Full, []string{userV1}, userAgeNoDefault, false},
		{Full, []string{userAgeNoDefault}, userV1, false},
		{AlwaysCompatible, []string{userV1}, userNameLong, true},
		{AlwaysIncompatible, []string{userV1}, userAgeDefault, false},
		// Non-transitive checks the latest only; transitive checks all.
		{Backward, []string{userEmpty, userAgeNoDefault}, userV1, true},
		{BackwardTransitive, []string{userEmpty, userAgeNoDefault}, userV1, false},
		{Forward, []string{userAgeNoDefault, userAgeDefault}, userEmpty, false},
		{ForwardTransitive, []string{userV1, userAgeNoDefault}, userAgeDefault, true},
		{Full, []string{userAgeNoDefault, userAgeDefault}, userV1, true},
		{FullTransitive, []string{userAgeNoDefault, userAgeDefault}, userV1, false},
	}
	for i, c := range cases {
		r, _ := newReg(t, c.strategy)
		// Register the history under ALWAYS_COMPATIBLE, then switch.
		r.SetPolicy("p/ns", Policy{Strategy: AlwaysCompatible})
		for _, f := range c.from {
			mustAdd(t, r, "p/ns/t", avro(f))
		}
		r.SetPolicy("p/ns", Policy{})
		_, err := r.AddSchema("p/ns/t", avro(c.to))
		if c.ok && err != nil {
			t.Errorf("case %d %s: %v", i, c.strategy, err)
		}
		if !c.ok && !errors.Is(err, ErrIncompatible) {
			t.Errorf("case %d %s: err = %v, want ErrIncompatible", i, c.strategy, err)
		}
	}
}

func TestSchemaAvroResolutionRules(t *testing.T) {
	rec := func(ft string) string {
		return `{"type":"record","name":"R","fields":[{"name":"f","type":` + ft + `}]}`
	}
	cases := []struct {
		reader, writer string
		ok             bool
	}{
		{rec(`"long"`), rec(`"int"`), true},
		{rec(`"int"`), rec(`"long"`), false},
		{rec(`"double"`), rec(`"float"`), true},
		{rec(`"bytes"`), rec(`"string"`), true},
		{rec(`["null","string"]`), rec(`"string"`), true},
		{rec(`"string"`), rec(`["null","string"]`), false},
		{rec(`{"type":"enum","name":"E","symbols":["A","B"]}`), rec(`{"type":"enum","name":"E","symbols":["A"]}`), true},
		{rec(`{"type":"enum","name":"E","symbols":["A"]}`), rec(`{"type":"enum","name":"E","symbols":["A","B"]}`), false},
		{rec(`{"type":"enum","name":"E","symbols":["A"],"default":"A"}`), rec(`{"type":"enum","name":"E","symbols":["A","B"]}`), true},
		{rec(`{"type":"fixed","name":"F","size":4}`), rec(`{"type":"fixed","name":"F","size":8}`), false},
		{rec(`{"type":"array","items":"long"}`), rec(`{"type":"array","items":"int"}`), true},
		{rec(`{"type":"map","values":"int"}`), rec(`{"type":"map","values":"string"}`), false},
		{`{"type":"record","name":"Other","fields":[]}`, `{"type":"record","name":"R","fields":[]}`, false},
		// A recursive type resolves without looping.
		{`{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`,
			`{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`, true},
		// A renamed field is read through the reader's alias.
		{`{"type":"record","name":"R","fields":[{"name":"g","aliases":["f"],"type":"int"}]}`, rec(`"int"`), true},
	}
	for i, c := range cases {
		r, _, err := parseAvro([]byte(c.reader))
		if err != nil {
			t.Fatalf("case %d reader: %v", i, err)
		}
		w, _, err := parseAvro([]byte(c.writer))
		if err != nil {
			t.Fatalf("case %d writer: %v", i, err)
		}
		if why := canRead(r, w); (why == "") != c.ok {
			t.Errorf("case %d: canRead = %q, want ok=%v", i, why, c.ok)
		}
	}
}

func TestSchemaTypeRules(t *testing.T) {
	r, _ := newReg(t, Full)
	mustAdd(t, r, "p/ns/s", Schema{Type: String})
	if _, err := r.AddSchema("p/ns/s", Schema{Type: Int32}); !errors.Is(err, ErrIncompatible) ||
		!strings.Contains(err.Error(), "exists schema type STRING, new schema type INT32") {
		t.Fatalf("INT32 after STRING: %v", err)
	}
	if _, err := r.AddSchema("p/ns/s", Schema{Type: JSON, Data: []byte(userV1)}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("JSON after STRING: %v", err)
	}
	// Same type, other data: Pulsar's default check accepts it.
	if v := mustAdd(t, r, "p/ns/s", Schema{Type: String, Data: []byte("x")}); v != 1 {
		t.Fatalf("STRING with other data = %d, want 1", v)
	}
	r.SetPolicy("p/ns/s", Policy{Strategy: AlwaysCompatible})
	if v := mustAdd(t, r, "p/ns/s", Schema{Type: Int64}); v != 2 {
		t.Fatalf("INT64 under ALWAYS_COMPATIBLE = %d, want 2", v)
	}
	// JSON with Avro definitions follows Avro's rules.
	mustAdd(t, r, "p/ns/j", Schema{Type: JSON, Data: []byte(userV1)})
	if _, err := r.AddSchema("p/ns/j", Schema{Type: JSON, Data: []byte(userAgeNoDefault)}); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("JSON field without default under FULL: %v", err)
	}
	mustAdd(t, r, "p/ns/j", Schema{Type: JSON, Data: []byte(userAgeDefault)})
}

func TestSchemaInvalidData(t *testing.T) {
	r, st := newReg(t, Full)
	deep := strings.Repeat(`{"type":"array","items":`, 100) + `"int"` + strings.Repeat("}", 100)
	for _, s := range []Schema{
		{Type: Avro, Data: nil},
		{Type: Avro, Data: []byte(`{"type":"record"`)},
		{Type: Avro, Data: []byte(`{"type":"record","name":"R"}`)},
		{Type: Avro, Data: []byte(`{"type":"record","name":"R","fields":[{"name":"f","type":"Nope"}]}`)},
		{Type: Avro, Data: []byte(`{"type":"fixed","name":"F","size":-1}`)},
		{Type: Avro, Data: []byte(`[["int"]]`)},
		{Type: Avro, Data: []byte(deep)},
		{Type: JSON, Data: []byte(`not json`)},
		{Type: Int32, Data: []byte("x")},
		{Type: ProtobufNative, Data: []byte(`{}`)},
		{Type: AutoConsume},
		{Type: Type(99)},
	} {
		if _, err := r.AddSchema("p/ns/t", s); !errors.Is(err, ErrInvalid) || !IsRefusal(err) {
			t.Errorf("AddSchema(%s %.40q) = %v, want ErrInvalid", s.Type, s.Data, err)
		}
	}
	if len(st.m) != 0 {
		t.Fatalf("invalid schemas were stored: %v", st.m)
	}
	if _, err := ParseVersion([]byte{1, 2}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ParseVersion of 2 bytes = %v", err)
	}
	if v, err := ParseVersion(VersionBytes(1 << 33)); err != nil || v != 1<<33 {
		t.Fatalf("ParseVersion round trip = %d, %v", v, err)
	}
}

func TestSchemaDelete(t *testing.T) {
	r, st := newReg(t, Full)
	mustAdd(t, r, "p/ns/t", avro(userV1))
	if v, err := r.Delete("p/ns/t", false); err != nil || v != 1 {
		t.Fatalf("Delete = %d, %v; want marker version 1", v, err)
	}
	if has, _ := r.HasSchema("p/ns/t"); has {
		t.Fatal("schema still there after delete")
	}
	if _, err := r.Get("p/ns/t", -1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("latest after delete = %v, want ErrNotFound", err)
	}
	if _, err := r.Get("p/ns/t", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("version 0 after delete = %v, want ErrNotFound", err)
	}
	if v, _ := r.Delete("p/ns/t", false); v != -1 {
		t.Fatalf("second delete wrote marker %d", v)
	}
	// After a delete anything may be registered: it is checked against
	// nothing, and numbered after the marker.
	if v := mustAdd(t, r, "p/ns/t", avro(userNameLong)); v != 2 {
		t.Fatalf("after delete = %d, want 2", v)
	}
	if got, err := r.Get("p/ns/t", 2); err != nil || got.Version != 2 {
		t.Fatalf("version 2 = %+v, %v", got, err)
	}
	if _, err := r.Get("p/ns/t", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("version 0, from before the delete = %v, want ErrNotFound", err)
	}
	all, _ := r.All("p/ns/t")
	if len(all) != 3 || !all[1].Deleted {
		t.Fatalf("All = %+v", all)
	}
	if _, err := r.Delete("p/ns/t", true); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.m["p/ns/t"]; ok {
		t.Fatal("force delete left versions in the store")
	}
	if v := mustAdd(t, r, "p/ns/t", avro(userV1)); v != 0 {
		t.Fatalf("after force delete = %d, want 0", v)
	}
}

func TestSchemaPolicies(t *testing.T) {
	r, _ := newReg(t, Undefined)
	if got := r.Effective("p/ns/t").Strategy; got != Full {
		t.Fatalf("default strategy = %s, want FULL", got)
	}
	r.SetPolicy("p/ns", Policy{Strategy: Backward})
	r.SetPolicy("p/ns/t", Policy{Strategy: Forward})
	if got := r.Effective("p/ns/t").Strategy; got != Forward {
		t.Fatalf("topic policy = %s", got)
	}
	if got := r.Effective("p/ns/u").Strategy; got != Backward {
		t.Fatalf("namespace policy = %s", got)
	}
	mustAdd(t, r, "p/ns/u", avro(userV1))
	no := false
	r.SetPolicy("p/ns", Policy{AutoUpdate: &no})
	// Without auto update, registered schemas are still accepted, new ones
	// (even compatible ones, even on a topic without a schema) are not.
	if v := mustAdd(t, r, "p/ns/u", avro(userV1Spaced)); v != 0 {
		t.Fatalf("registered schema = %d", v)
	}
	for _, id := range []string{"p/ns/u", "p/ns/fresh"} {
		if _, err := r.AddSchema(id, avro(userAgeDefault)); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("%s: new schema without auto update: %v", id, err)
		}
	}
	// Validation enforced refuses producers without a schema where there is one.
	yes := true
	r.SetPolicy("p/ns", Policy{ValidationEnforced: &yes})
	if err := r.CheckProducerWithoutSchema("p/ns/u"); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("producer without schema, enforced: %v", err)
	}
	if err := r.CheckProducerWithoutSchema("p/ns/fresh"); err != nil {
		t.Fatalf("producer without schema on a topic without one: %v", err)
	}
}

func TestSchemaConsumerRules(t *testing.T) {
	r, _ := newReg(t, Full)
	// Idle topic: the consumer's schema is registered.
	if err := r.CheckConsumer("p/ns/idle", avro(userV1), false); err != nil {
		t.Fatal(err)
	}
	if has, _ := r.HasSchema("p/ns/idle"); !has {
		t.Fatal("idle topic: consumer schema not registered")
	}
	// Active topic without a schema: refused.
	if err := r.CheckConsumer("p/ns/busy", avro(userV1), true); !errors.Is(err, ErrIncompatible) ||
		!strings.Contains(err.Error(), "empty(BYTES) schema") {
		t.Fatalf("active topic without schema: %v", err)
	}
	// FULL checks the consumer BACKWARD against the latest: it must read
	// what was written; a consumer dropping a field is fine under FULL here
	// although a producer adding one without default would not be.
	if err := r.CheckConsumer("p/ns/idle", avro(userEmpty), true); err != nil {
		t.Fatalf("reader of a subset: %v", err)
	}
	if err := r.CheckConsumer("p/ns/idle", avro(userAgeNoDefault), true); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("reader needing a missing field: %v", err)
	}
	if has, _ := r.All("p/ns/idle"); len(has) != 1 {
		t.Fatalf("consumer checks registered versions: %+v", has)
	}
}

func TestSchemaParseStrategy(t *testing.T) {
	for i := AlwaysIncompatible; i <= FullTransitive; i++ {
		if got, err := ParseStrategy(strings.ToLower(i.String())); err != nil || got != i {
			t.Errorf("ParseStrategy(%s) = %s, %v", i, got, err)
		}
	}
	if _, err := ParseStrategy("SOMETIMES"); err == nil {
		t.Error("ParseStrategy accepted an unknown name")
	}
}

func TestSchemaIsCompatible(t *testing.T) {
	r, st := newReg(t, Full)
	if err := r.IsCompatible("p/ns/t", avro(userV1)); err != nil {
		t.Fatalf("no schema yet: %v", err)
	}
	mustAdd(t, r, "p/ns/t", avro(userV1))
	if err := r.IsCompatible("p/ns/t", avro(userAgeDefault)); err != nil {
		t.Fatalf("compatible: %v", err)
	}
	if err := r.IsCompatible("p/ns/t", avro(userNameLong)); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("incompatible: %v", err)
	}
	if err := r.IsCompatible("p/ns/t", avro(`{`)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("invalid: %v", err)
	}
	if all, _ := r.All("p/ns/t"); len(all) != 1 || len(st.m) != 1 {
		t.Fatalf("IsCompatible registered something: %+v", all)
	}
}

func kv(keyType, valueType string, key, value string) Schema {
	var d []byte
	for _, p := range []string{key, value} {
		d = binary.BigEndian.AppendUint32(d, uint32(len(p)))
		d = append(d, p...)
	}
	return Schema{Type: KeyValue, Data: d, Props: map[string]string{"key.schema.type": keyType, "value.schema.type": valueType}}
}

func TestSchemaKeyValue(t *testing.T) {
	r, _ := newReg(t, Full)
	mustAdd(t, r, "p/ns/kv", kv("STRING", "AVRO", "", userV1))
	if v := mustAdd(t, r, "p/ns/kv", kv("STRING", "AVRO", "", userAgeDefault)); v != 1 {
		t.Fatalf("compatible value = %d", v)
	}
	for name, s := range map[string]Schema{
		"value field type changed": kv("STRING", "AVRO", "", userNameLong),
		// Other data than any version: the same data would be found as that
		// version, properties are not compared.
		"key type changed": kv("INT32", "AVRO", "", userEmpty),
	} {
		if _, err := r.AddSchema("p/ns/kv", s); !errors.Is(err, ErrIncompatible) {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := kv("STRING", "AVRO", "", userV1)
	bad.Data = bad.Data[:len(bad.Data)-3]
	for name, s := range map[string]Schema{
		"truncated":     bad,
		"bad part":      kv("STRING", "AVRO", "", "{"),
		"unknown type":  kv("NOPE", "AVRO", "", userV1),
		"short":         {Type: KeyValue, Data: []byte{0, 0}},
		"huge length":   {Type: KeyValue, Data: []byte{0x7f, 0xff, 0xff, 0xff}},
		"nested":        kv("KEY_VALUE", "STRING", "", ""),
		"primitive key": kv("INT32", "STRING", "x", ""),
	} {
		if _, err := r.AddSchema("p/ns/kv2", s); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
