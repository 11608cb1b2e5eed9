package store

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestSchemaStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	open := map[string]func(t *testing.T) Store{
		"memory": func(*testing.T) Store { return NewMemory() },
		"bolt": func(t *testing.T) Store {
			st, err := OpenBolt(path)
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
	for name, mk := range open {
		t.Run(name, func(t *testing.T) {
			st := mk(t).(SchemaStore)
			if _, ok, err := st.GetSchemas("p/ns/t"); ok || err != nil {
				t.Fatalf("empty store: %v %v", ok, err)
			}
			blob := []byte("v0")
			if err := st.PutSchemas("p/ns/t", blob); err != nil {
				t.Fatal(err)
			}
			blob[0] = 'X' // copied in
			got, ok, err := st.GetSchemas("p/ns/t")
			if !ok || err != nil || string(got) != "v0" {
				t.Fatalf("GetSchemas = %q %v %v", got, ok, err)
			}
			if err := st.PutSchemas("", blob); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("empty id: %v", err)
			}
			if name == "bolt" {
				// Survives a reopen.
				_ = st.(Store).Close()
				st = mk(t).(SchemaStore)
				if got, ok, _ := st.GetSchemas("p/ns/t"); !ok || string(got) != "v0" {
					t.Fatalf("after reopen: %q %v", got, ok)
				}
			}
			if err := st.PutSchemas("p/ns/t", nil); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := st.GetSchemas("p/ns/t"); ok {
				t.Fatal("deleted schemas still there")
			}
			_ = st.(Store).Close()
			if err := st.PutSchemas("p/ns/t", blob); !errors.Is(err, ErrClosed) {
				t.Fatalf("after close: %v", err)
			}
		})
	}
}
