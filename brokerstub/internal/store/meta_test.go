package store

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestMetaStore checks both stores' MetaStore: put, get, overwrite,
// delete, and (bbolt) survival across a reopen.
func TestMetaStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.db")
	bolt, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]Store{"memory": NewMemory(), "bolt": bolt} {
		t.Run(name, func(t *testing.T) {
			ms := st.(MetaStore)
			if _, ok, err := ms.GetMeta("k"); ok || err != nil {
				t.Fatalf("empty store: %v %v", ok, err)
			}
			if err := ms.PutMeta("", []byte("x")); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("empty key: %v", err)
			}
			for _, v := range []string{"one", "two"} {
				if err := ms.PutMeta("k", []byte(v)); err != nil {
					t.Fatal(err)
				}
				if got, ok, err := ms.GetMeta("k"); !ok || err != nil || string(got) != v {
					t.Fatalf("get = %q %v %v, want %q", got, ok, err, v)
				}
			}
			if err := ms.PutMeta("k", nil); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := ms.GetMeta("k"); ok {
				t.Error("key still there after delete")
			}
			_ = ms.PutMeta("kept", []byte("v"))
		})
	}
	if err := bolt.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if got, ok, err := reopened.(MetaStore).GetMeta("kept"); !ok || err != nil || string(got) != "v" {
		t.Errorf("after reopen: %q %v %v", got, ok, err)
	}
	if err := reopened.Close(); err != nil {
		t.Fatal(err)
	}
	if err := reopened.(MetaStore).PutMeta("k", []byte("v")); !errors.Is(err, ErrClosed) {
		t.Errorf("put after close: %v, want ErrClosed", err)
	}
}
