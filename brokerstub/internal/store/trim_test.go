package store

import (
	"errors"
	"testing"
)

// TestDeleteLedgersBefore checks both stores' Trimmer: whole ledgers below
// the given id go, later ones stay in order, the removal survives a
// reopen, and the ledger id counter keeps removed positions from reuse.
func TestDeleteLedgersBefore(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		const topic = "persistent://public/default/trim"
		for _, p := range [][2]int64{{1, 0}, {1, 1}, {2, 0}, {3, 0}, {3, 1}} {
			if err := s.AppendEntry(topic, StoredEntry{Ledger: p[0], Entry: p[1], Payload: []byte("x")}); err != nil {
				t.Fatal(err)
			}
		}
		tr := s.(Trimmer)
		if err := tr.DeleteLedgersBefore("", 2); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("empty topic name: %v", err)
		}
		if err := tr.DeleteLedgersBefore("persistent://public/default/none", 9); err != nil {
			t.Errorf("unknown topic: %v", err)
		}
		if err := tr.DeleteLedgersBefore(topic, 1); err != nil {
			t.Fatal(err)
		}
		if err := tr.DeleteLedgersBefore(topic, 3); err != nil {
			t.Fatal(err)
		}
		s = restart(s)
		var got [][2]int64
		if err := s.Entries(topic, func(e StoredEntry) error {
			got = append(got, [2]int64{e.Ledger, e.Entry})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != [2]int64{3, 0} || got[1] != [2]int64{3, 1} {
			t.Fatalf("entries after trimming below ledger 3: %v", got)
		}
		id, err := s.NewLedgerID(topic)
		if err != nil || id != 4 {
			t.Fatalf("NewLedgerID = %d, %v; want 4", id, err)
		}
		if err := s.AppendEntry(topic, StoredEntry{Ledger: 2, Entry: 5}); !errors.Is(err, ErrOutOfOrder) {
			t.Errorf("append into a removed ledger: %v", err)
		}
	})
}
