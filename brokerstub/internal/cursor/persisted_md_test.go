package cursor

import "testing"

// TestPersistedMarkDelete: the persisted mark-delete position follows
// Flush, not acks, and a restored cursor starts with the position it was
// restored from (what brokerstub's retention trims by).
func TestPersistedMarkDelete(t *testing.T) {
	l := newLayout([2]int64{1, 3})
	start := Position{Ledger: 1, Entry: -1}
	c := New(start, l, Options{})
	if got := c.PersistedMarkDelete(); got != start {
		t.Fatalf("new cursor: %v", got)
	}
	c.AckIndividual(Position{Ledger: 1, Entry: 0}, nil, 1)
	if got := c.PersistedMarkDelete(); got != start {
		t.Fatalf("after an ack, before a flush: %v", got)
	}
	state, ok := c.Flush()
	if !ok {
		t.Fatal("nothing to flush")
	}
	want := Position{Ledger: 1, Entry: 0}
	if got := c.PersistedMarkDelete(); got != want {
		t.Fatalf("after Flush: %v, want %v", got, want)
	}
	r, err := Restore(state, l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.PersistedMarkDelete(); got != want {
		t.Fatalf("restored: %v, want %v", got, want)
	}
}
