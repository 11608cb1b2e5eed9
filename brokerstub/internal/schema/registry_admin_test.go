package schema

import (
	"bytes"
	"errors"
	"testing"
)

// TestRegisterIgnoresAutoUpdate: the admin API's upload registers a new
// schema when producers may not (AutoUpdate false), still under the
// compatibility strategy; AddSchema refuses it.
func TestRegisterIgnoresAutoUpdate(t *testing.T) {
	r, _ := newReg(t, Full)
	r.SetPolicy("p/ns", Policy{AutoUpdate: new(bool)})
	if _, err := r.AddSchema("p/ns/t", avro(userV1)); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("AddSchema with auto update off = %v, want ErrIncompatible", err)
	}
	if v, err := r.Register("p/ns/t", avro(userV1)); err != nil || v != 0 {
		t.Fatalf("Register = %d, %v", v, err)
	}
	if v, err := r.AddSchema("p/ns/t", avro(userV1Spaced)); err != nil || v != 0 {
		t.Fatalf("AddSchema of the registered schema = %d, %v", v, err)
	}
	if _, err := r.Register("p/ns/t", avro(userNameLong)); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("Register of an incompatible schema = %v", err)
	}
}

// TestFindVersion: the version with the same type and data since the
// latest deletion, -1 otherwise.
func TestFindVersion(t *testing.T) {
	r, _ := newReg(t, AlwaysCompatible)
	mustAdd(t, r, "p/ns/t", avro(userV1))
	mustAdd(t, r, "p/ns/t", Schema{Type: JSON, Data: []byte(userV1)})
	for _, c := range []struct {
		s    Schema
		want int64
	}{
		{avro(userV1), 0},
		{Schema{Type: JSON, Data: []byte(userV1)}, 1},
		{avro(userV1Spaced), -1}, // the same Avro schema, other bytes: Pulsar's hash differs
		{Schema{Type: String}, -1},
	} {
		if v, err := r.FindVersion("p/ns/t", c.s); err != nil || v != c.want {
			t.Errorf("FindVersion(%s %.20q) = %d, %v; want %d", c.s.Type, c.s.Data, v, err, c.want)
		}
	}
	if _, err := r.Delete("p/ns/t", false); err != nil {
		t.Fatal(err)
	}
	if v, err := r.FindVersion("p/ns/t", avro(userV1)); err != nil || v != -1 {
		t.Errorf("FindVersion after a deletion = %d, %v; want -1", v, err)
	}
}

func TestKeyValueDataRoundTrip(t *testing.T) {
	s := Schema{Type: KeyValue, Data: KeyValueData([]byte{}, []byte(userV1)),
		Props: map[string]string{"key.schema.type": "STRING", "value.schema.type": "AVRO"}}
	k, v, err := SplitKeyValue(s)
	if err != nil || k.Type != String || len(k.Data) != 0 || v.Type != Avro || !bytes.Equal(v.Data, []byte(userV1)) {
		t.Fatalf("SplitKeyValue(KeyValueData) = %+v, %+v, %v", k, v, err)
	}
	if err := Validate(s); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}
