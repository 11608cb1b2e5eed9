package store

import (
	"errors"
	"reflect"
	"testing"
)

// ReadEntry gives back one stored entry whole (after a restart too), and
// nothing for a position never stored, trimmed, or of a deleted topic.
func TestReadEntry(t *testing.T) {
	forEach(t, func(t *testing.T, s Store, restart func(Store) Store) {
		for _, p := range [][2]int64{{3, 0}, {3, 1}, {5, 0}} {
			if err := s.AppendEntry("t", entry(p[0], p[1])); err != nil {
				t.Fatal(err)
			}
		}
		s = restart(s)
		r := s.(EntryReader)
		got, ok, err := r.ReadEntry("t", 3, 1)
		if err != nil || !ok || !reflect.DeepEqual(got, entry(3, 1)) {
			t.Fatalf("ReadEntry(3:1) = %+v, %v, %v", got, ok, err)
		}
		for _, p := range [][2]int64{{3, 2}, {4, 0}, {-1, 0}, {5, 1}} {
			if _, ok, err := r.ReadEntry("t", p[0], p[1]); ok || err != nil {
				t.Errorf("ReadEntry(%d:%d) = %v, %v; want none", p[0], p[1], ok, err)
			}
		}
		if err := s.(Trimmer).DeleteLedgersBefore("t", 5); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := r.ReadEntry("t", 3, 0); ok {
			t.Error("a trimmed entry reads back")
		}
		if err := s.DeleteTopic("t"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := r.ReadEntry("t", 5, 0); ok {
			t.Error("an entry of a deleted topic reads back")
		}
		if _, _, err := r.ReadEntry("", 5, 0); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("empty topic: %v", err)
		}
	})
}
