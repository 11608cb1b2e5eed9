package ledger

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

func TestOptionsDefaults(t *testing.T) {
	l := open(t, store.NewMemory(), Options{})
	if l.opts.RolloverEntries != DefaultRolloverEntries || l.opts.Now == nil {
		t.Fatalf("defaults not applied: %+v", l.opts)
	}
	if _, err := Open(store.NewMemory(), "t", Options{RolloverEntries: -1}); err == nil {
		t.Fatal("Open accepted a negative RolloverEntries")
	}
	if l.Topic() != "persistent://public/default/t" {
		t.Fatalf("Topic = %q", l.Topic())
	}
}

func TestRollover(t *testing.T) {
	for _, c := range []struct {
		every int
		want  []Position
	}{
		{1, []Position{pos(1, 0), pos(2, 0), pos(3, 0), pos(4, 0), pos(5, 0)}},
		{3, []Position{pos(1, 0), pos(1, 1), pos(1, 2), pos(2, 0), pos(2, 1), pos(2, 2), pos(3, 0)}},
		{100, []Position{pos(1, 0), pos(1, 1), pos(1, 2)}},
	} {
		l := open(t, store.NewMemory(), Options{RolloverEntries: c.every})
		got := appendN(t, l, len(c.want), nil)
		if !slices.Equal(got, c.want) {
			t.Errorf("RolloverEntries %d: positions %v, want %v", c.every, got, c.want)
		}
		if l.Len() != len(c.want) || l.CurrentLedger() != c.want[len(c.want)-1].Ledger {
			t.Errorf("RolloverEntries %d: Len %d, CurrentLedger %d", c.every, l.Len(), l.CurrentLedger())
		}
	}
}

func TestAppendStoresEntryAsGiven(t *testing.T) {
	clk := &clock{now: time.UnixMilli(1_700_000_000_123)}
	st := store.NewMemory()
	l := open(t, st, Options{Now: clk.Now})
	meta, payload := []byte("meta"), []byte("payload")
	p, err := l.Append(Bytes{Meta: meta, Payload: payload}, 42, 7)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := l.Get(p)
	want := Entry{Pos: p, Meta: meta, Payload: payload, PublishTime: 42, BrokerTimestamp: 1_700_000_000_123, NumMessages: 7}
	if !ok || !sameEntry(e, want) {
		t.Fatalf("Get(%s) = %+v, %v; want %+v", p, e, ok, want)
	}
	// The ledger keeps a copy: the caller's buffers are free again.
	copy(meta, "xxxx")
	copy(payload, "xxxxxxx")
	if e2, _ := l.Get(p); string(e2.Meta) != "meta" || string(e2.Payload) != "payload" {
		t.Fatalf("entry changed with the caller's buffers: %q %q", e2.Meta, e2.Payload)
	}
	var stored []store.StoredEntry
	st.Entries(l.Topic(), func(se store.StoredEntry) error {
		stored = append(stored, se)
		return nil
	})
	if len(stored) != 1 || stored[0].BrokerTimestamp != 1_700_000_000_123 || stored[0].NumMessages != 7 {
		t.Fatalf("stored %+v", stored)
	}
}

func sameEntry(a, b Entry) bool {
	return a.Pos == b.Pos && bytes.Equal(a.Meta, b.Meta) && bytes.Equal(a.Payload, b.Payload) &&
		a.PublishTime == b.PublishTime && a.BrokerTimestamp == b.BrokerTimestamp && a.NumMessages == b.NumMessages
}

func TestReopenReplaysAndStartsNewLedger(t *testing.T) {
	stores := map[string]func(t *testing.T) (store.Store, func(store.Store) store.Store){
		"memory": func(t *testing.T) (store.Store, func(store.Store) store.Store) {
			st := store.NewMemory()
			return st, func(st store.Store) store.Store { return st }
		},
		"bolt": func(t *testing.T) (store.Store, func(store.Store) store.Store) {
			path := filepath.Join(t.TempDir(), "stub.db")
			openBolt := func() store.Store {
				st, err := store.OpenBolt(path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				return st
			}
			return openBolt(), func(st store.Store) store.Store {
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				return openBolt()
			}
		},
	}
	for name, start := range stores {
		t.Run(name, func(t *testing.T) {
			st, restart := start(t)
			clk := &clock{now: time.UnixMilli(5000)}
			opts := Options{RolloverEntries: 3, Now: clk.Now}
			l := open(t, st, opts)
			appendN(t, l, 5, func(i int) uint64 { return uint64(100 + i) })
			var before []Entry
			l.Scan(Earliest, func(e Entry) bool { before = append(before, e); return true })

			st = restart(st)
			clk.now = time.UnixMilli(9000)
			l2 := open(t, st, opts)
			var after []Entry
			l2.Scan(Earliest, func(e Entry) bool { after = append(after, e); return true })
			if len(after) != len(before) || l2.Len() != l.Len() {
				t.Fatalf("replayed %d entries (Len %d), want %d", len(after), l2.Len(), len(before))
			}
			for i := range before {
				if !sameEntry(after[i], before[i]) {
					t.Fatalf("replayed entry %d = %+v, want %+v", i, after[i], before[i])
				}
			}
			last, _ := l.Last()
			if l2.CurrentLedger() <= last.Ledger || l2.CurrentLedger() <= l.CurrentLedger() {
				t.Fatalf("CurrentLedger after reopen = %d, last entry %s", l2.CurrentLedger(), last)
			}
			p := appendN(t, l2, 1, nil)[0]
			if p != pos(l2.CurrentLedger(), 0) || !last.Less(p) {
				t.Fatalf("first append after reopen at %s, current ledger %d", p, l2.CurrentLedger())
			}
			if e, _ := l2.Get(p); e.BrokerTimestamp != 9000 {
				t.Fatalf("BrokerTimestamp %d, want 9000", e.BrokerTimestamp)
			}
		})
	}
}

func TestAppendErrorLeavesStateUnchanged(t *testing.T) {
	st := &faultyStore{Store: store.NewMemory()}
	l := open(t, st, Options{RolloverEntries: 2})
	appendN(t, l, 3, nil) // 1:0 1:1 2:0
	check := func(when string) {
		t.Helper()
		if got := positions(l); !slices.Equal(got, []Position{pos(1, 0), pos(1, 1), pos(2, 0)}) || l.Len() != 3 {
			t.Fatalf("%s: positions %v, Len %d", when, got, l.Len())
		}
		if last, _ := l.Last(); last != pos(2, 0) {
			t.Fatalf("%s: Last = %s", when, last)
		}
		if _, ok := l.Get(pos(2, 1)); ok {
			t.Fatalf("%s: Get(2:1) found an entry", when)
		}
	}

	st.failAppend = true
	if _, err := l.Append(Bytes{Meta: []byte("m"), Payload: []byte("p")}, 0, 1); !errors.Is(err, errInjected) {
		t.Fatalf("Append with a failing store = %v", err)
	}
	check("after a failed AppendEntry")

	// The next append starts a new ledger; if that fails, nothing changes.
	st.failAppend, st.failNewLedger = false, true
	if _, err := l.Append(Bytes{Meta: []byte("m"), Payload: []byte("p")}, 0, 1); !errors.Is(err, errInjected) {
		t.Fatalf("Append with a failing NewLedgerID = %v", err)
	}
	check("after a failed NewLedgerID")

	st.failNewLedger = false
	p := appendN(t, l, 1, nil)[0]
	if p.Ledger <= 2 || p.Entry != 0 {
		t.Fatalf("append after failures at %s, want entry 0 of a new ledger", p)
	}
	if q := appendN(t, l, 1, nil)[0]; q != pos(p.Ledger, 1) {
		t.Fatalf("then at %s, want %s", q, pos(p.Ledger, 1))
	}
}

func TestRolloverErrorLeavesStateUnchanged(t *testing.T) {
	st := &faultyStore{Store: store.NewMemory()}
	l := open(t, st, Options{RolloverEntries: 1})
	appendN(t, l, 1, nil)
	st.failNewLedger = true
	if _, err := l.Append(Bytes{}, 0, 1); !errors.Is(err, errInjected) {
		t.Fatalf("Append = %v", err)
	}
	if got := positions(l); !slices.Equal(got, []Position{pos(1, 0)}) || l.CurrentLedger() != 1 {
		t.Fatalf("positions %v, CurrentLedger %d", got, l.CurrentLedger())
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(&faultyStore{Store: store.NewMemory(), failEntries: true}, "t", Options{}); !errors.Is(err, errInjected) {
		t.Errorf("Open with failing Entries = %v", err)
	}
	if _, err := Open(&faultyStore{Store: store.NewMemory(), failNewLedger: true}, "t", Options{}); !errors.Is(err, errInjected) {
		t.Errorf("Open with failing NewLedgerID = %v", err)
	}

	// A store that hands out a ledger id that is not after the entries.
	st := &faultyStore{Store: store.NewMemory()}
	l := open(t, st, Options{})
	appendN(t, l, 1, nil)
	st.ledgerID = func() int64 { return 1 }
	if _, err := Open(st, l.Topic(), Options{}); err == nil {
		t.Error("Open accepted a ledger id that is not after the stored entries")
	}

	for name, entries := range map[string][]Position{
		"gap in a ledger":       {pos(1, 0), pos(1, 2)},
		"first entry not 0":     {pos(1, 1)},
		"new ledger not at 0":   {pos(1, 0), pos(2, 1)},
		"first entry at 3:5":    {pos(3, 5)},
		"gap after two ledgers": {pos(1, 0), pos(2, 0), pos(2, 2)},
		"gap in a later ledger": {pos(1, 0), pos(3, 0), pos(3, 2)},
	} {
		st := store.NewMemory()
		for _, p := range entries {
			if err := st.AppendEntry("t", store.StoredEntry{Ledger: p.Ledger, Entry: p.Entry}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Open(st, "t", Options{}); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: Open = %v, want ErrCorrupt", name, err)
		}
	}
}
