package ledger

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// clock is a settable test clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// faultyStore wraps a Store and fails chosen calls with errInjected.
type faultyStore struct {
	store.Store
	failAppend, failNewLedger, failEntries bool
	// ledgerID, if set, replaces the ids NewLedgerID returns.
	ledgerID func() int64
}

var errInjected = errors.New("injected store failure")

func (s *faultyStore) AppendEntry(topic string, e store.StoredEntry) error {
	if s.failAppend {
		return errInjected
	}
	return s.Store.AppendEntry(topic, e)
}

func (s *faultyStore) NewLedgerID(topic string) (int64, error) {
	if s.failNewLedger {
		return 0, errInjected
	}
	if s.ledgerID != nil {
		return s.ledgerID(), nil
	}
	return s.Store.NewLedgerID(topic)
}

func (s *faultyStore) Entries(topic string, fn func(store.StoredEntry) error) error {
	if s.failEntries {
		return errInjected
	}
	return s.Store.Entries(topic, fn)
}

func open(t testing.TB, st store.Store, opts Options) *Ledger {
	t.Helper()
	l, err := Open(st, "persistent://public/default/t", opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l
}

// appendN appends n entries whose publish times are given by pt (or the
// entry's index if pt is nil) and returns their positions.
func appendN(t testing.TB, l *Ledger, n int, pt func(i int) uint64) []Position {
	t.Helper()
	var out []Position
	for i := range n {
		ts := uint64(i)
		if pt != nil {
			ts = pt(i)
		}
		p, err := l.Append(Bytes{Meta: fmt.Appendf(nil, "meta-%d", l.Len()), Payload: fmt.Appendf(nil, "payload-%d", l.Len())}, ts, 1)
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		out = append(out, p)
	}
	return out
}

func pos(ledger, entry int64) Position { return Position{Ledger: ledger, Entry: entry} }

// positions returns the positions Scan visits from Earliest.
func positions(l *Ledger) []Position {
	var out []Position
	l.Scan(Earliest, func(e Entry) bool {
		out = append(out, e.Pos)
		return true
	})
	return out
}
