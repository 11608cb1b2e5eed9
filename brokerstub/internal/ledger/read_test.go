package ledger

import (
	"math"
	"slices"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// gappyLedger returns a ledger whose entries are 1:0 1:1 3:0 3:1 3:2 4:0,
// with ledger 2 opened by a restart and left empty, and ledger 6 the
// (empty) current ledger after ledger 5 was also left empty.
func gappyLedger(t *testing.T) *Ledger {
	t.Helper()
	st := store.NewMemory()
	opts := Options{RolloverEntries: 3}
	appendN(t, open(t, st, opts), 2, nil) // ledger 1
	open(t, st, opts)                     // ledger 2: no writes
	appendN(t, open(t, st, opts), 4, nil) // ledgers 3 and 4
	open(t, st, opts)                     // ledger 5: no writes
	l := open(t, st, opts)                // ledger 6: current, empty
	want := []Position{pos(1, 0), pos(1, 1), pos(3, 0), pos(3, 1), pos(3, 2), pos(4, 0)}
	if got := positions(l); !slices.Equal(got, want) || l.CurrentLedger() != 6 {
		t.Fatalf("setup: positions %v, CurrentLedger %d", got, l.CurrentLedger())
	}
	return l
}

var none = Position{Ledger: math.MinInt64} // marks "no position" in tables

func TestNext(t *testing.T) {
	l := gappyLedger(t)
	for _, c := range []struct{ from, want Position }{
		{Earliest, pos(1, 0)},
		{pos(0, 5), pos(1, 0)},
		{pos(1, -1), pos(1, 0)},
		{pos(1, -7), pos(1, 0)},
		{pos(1, 0), pos(1, 1)},
		{pos(1, 1), pos(3, 0)}, // across the empty ledger 2
		{pos(1, 99), pos(3, 0)},
		{pos(1, math.MaxInt64), pos(3, 0)},
		{pos(2, -1), pos(3, 0)},
		{pos(2, 0), pos(3, 0)},
		{pos(3, 1), pos(3, 2)},
		{pos(3, 2), pos(4, 0)}, // across a rollover
		{pos(4, 0), none},
		{pos(5, -1), none},
		{pos(6, -1), none},
		{Latest, none},
	} {
		got, ok := l.Next(c.from)
		if !ok {
			got = none
		}
		if got != c.want {
			t.Errorf("Next(%s) = %s, want %s", c.from, got, c.want)
		}
	}
}

func TestPrev(t *testing.T) {
	l := gappyLedger(t)
	for _, c := range []struct{ from, want Position }{
		{Latest, pos(4, 0)},
		{pos(6, 0), pos(4, 0)},
		{pos(5, -1), pos(4, 0)},
		{pos(4, 1), pos(4, 0)},
		{pos(4, 0), pos(3, 2)}, // across a rollover
		{pos(4, -1), pos(3, 2)},
		{pos(3, 99), pos(3, 2)},
		{pos(3, math.MaxInt64), pos(3, 2)},
		{pos(3, 1), pos(3, 0)},
		{pos(3, 0), pos(1, 1)}, // across the empty ledger 2
		{pos(2, 5), pos(1, 1)},
		{pos(2, -1), pos(1, 1)},
		{pos(1, 1), pos(1, 0)},
		{pos(1, 0), none},
		{pos(1, -1), none},
		{pos(0, 9), none},
		{Earliest, none},
	} {
		got, ok := l.Prev(c.from)
		if !ok {
			got = none
		}
		if got != c.want {
			t.Errorf("Prev(%s) = %s, want %s", c.from, got, c.want)
		}
	}
}

func TestGetFirstLast(t *testing.T) {
	l := gappyLedger(t)
	for _, p := range positions(l) {
		e, ok := l.Get(p)
		if !ok || e.Pos != p {
			t.Errorf("Get(%s) = %s, %v", p, e.Pos, ok)
		}
	}
	for _, p := range []Position{Earliest, Latest, pos(0, 0), pos(1, -1), pos(1, 2), pos(2, 0), pos(3, 3), pos(4, 1), pos(6, 0), pos(1, math.MaxInt64)} {
		if e, ok := l.Get(p); ok {
			t.Errorf("Get(%s) found %s", p, e.Pos)
		}
	}
	if p, ok := l.First(); !ok || p != pos(1, 0) {
		t.Errorf("First = %s, %v", p, ok)
	}
	if p, ok := l.Last(); !ok || p != pos(4, 0) {
		t.Errorf("Last = %s, %v", p, ok)
	}
}

func TestEmptyLedger(t *testing.T) {
	l := open(t, store.NewMemory(), Options{})
	if _, ok := l.First(); ok {
		t.Error("First found an entry")
	}
	if _, ok := l.Last(); ok {
		t.Error("Last found an entry")
	}
	if _, ok := l.Next(Earliest); ok {
		t.Error("Next found an entry")
	}
	if _, ok := l.Prev(Latest); ok {
		t.Error("Prev found an entry")
	}
	if _, ok := l.Get(pos(1, 0)); ok {
		t.Error("Get found an entry")
	}
	if got := positions(l); len(got) != 0 || l.Len() != 0 {
		t.Errorf("Scan gave %v, Len %d", got, l.Len())
	}
}

func TestScan(t *testing.T) {
	l := gappyLedger(t)
	all := positions(l)
	for _, c := range []struct {
		from Position
		want []Position
	}{
		{Earliest, all},
		{pos(1, -1), all},
		{pos(1, 0), all},
		{pos(1, 1), all[1:]},
		{pos(1, 2), all[2:]},
		{pos(2, 0), all[2:]},
		{pos(3, 2), all[4:]},
		{pos(3, math.MaxInt64), all[5:]},
		{pos(4, 1), nil},
		{Latest, nil},
	} {
		var got []Position
		l.Scan(c.from, func(e Entry) bool {
			got = append(got, e.Pos)
			return true
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("Scan(%s) = %v, want %v", c.from, got, c.want)
		}
	}
	var got []Position
	l.Scan(Earliest, func(e Entry) bool {
		got = append(got, e.Pos)
		return len(got) < 3
	})
	if !slices.Equal(got, all[:3]) {
		t.Errorf("Scan stopped after %v, want %v", got, all[:3])
	}
}
