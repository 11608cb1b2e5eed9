package ledger

import (
	"path/filepath"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// TestAppendAsyncVisibleOnlyAfterFinish: with a store that pipelines
// appends, AppendAsync gives positions at once but the entries are read
// only once Finish has them; the store reports them in order.
func TestAppendAsyncVisibleOnlyAfterFinish(t *testing.T) {
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := open(t, st, Options{})
	done := make(chan Pending, 3)
	for range 3 {
		l.AppendAsync(Bytes{Meta: []byte("m"), Payload: []byte("p")}, 1, 1, func(p Pending) { done <- p })
	}
	if l.Len() != 0 {
		t.Fatalf("Len %d before any Finish, want 0", l.Len())
	}
	for i := range 3 {
		p := <-done
		pos, err := l.Finish(p)
		if err != nil {
			t.Fatal(err)
		}
		if pos.Entry != int64(i) || l.Len() != i+1 {
			t.Fatalf("Finish %d: position %s, Len %d", i, pos, l.Len())
		}
		if e, ok := l.Get(pos); !ok || string(e.Payload) != "p" {
			t.Fatalf("Get(%s) after Finish: %v %v", pos, e, ok)
		}
	}
}

// TestAppendAsyncSynchronousStore: with a store that does not pipeline,
// AppendAsync stores at once and Finish adds nothing twice.
func TestAppendAsyncSynchronousStore(t *testing.T) {
	l := open(t, store.NewMemory(), Options{})
	var got []Pending
	for range 2 {
		l.AppendAsync(Bytes{Payload: []byte("p")}, 1, 1, func(p Pending) { got = append(got, p) })
	}
	if len(got) != 2 {
		t.Fatalf("%d outcomes before AppendAsync returned, want 2", len(got))
	}
	for i, p := range got {
		pos, err := l.Finish(p)
		if err != nil || pos.Entry != int64(i) {
			t.Fatalf("Finish %d: %s %v", i, pos, err)
		}
	}
	if l.Len() != 2 {
		t.Fatalf("Len %d, want 2", l.Len())
	}
}

// TestAppendAsyncFailureRollsOver: a failed pending entry makes the next
// append start a new ledger.
func TestAppendAsyncFailureRollsOver(t *testing.T) {
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	l := open(t, st, Options{})
	first := l.CurrentLedger()
	st.Close() // the queued append fails with ErrClosed
	done := make(chan Pending, 1)
	l.AppendAsync(Bytes{Payload: []byte("p")}, 1, 1, func(p Pending) { done <- p })
	if _, err := l.Finish(<-done); err == nil {
		t.Fatal("Finish of an append to a closed store: no error")
	}
	if !l.roll {
		t.Fatalf("after a failed append the next one stays in ledger %d", first)
	}
}
