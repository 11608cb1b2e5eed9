package consumer

import (
	"sync/atomic"
	"testing"
)

// An engine counts itself in Options.Parked while it holds entries back
// compressed, once however many it holds: the consumer of a thousand
// partitions wakes its engines for a waiting Receive only while the count
// is positive.
func TestParkedCountsEnginesHoldingEntries(t *testing.T) {
	var parked atomic.Int32
	a := New(Options[*Message]{Topic: "a", Parked: &parked})
	b := New(Options[*Message]{Topic: "b", Parked: &parked})
	a.setParked(1)
	a.setParked(3)
	b.setParked(2)
	if got := parked.Load(); got != 2 {
		t.Fatalf("two engines hold entries: Parked = %d, want 2", got)
	}
	a.setParked(0)
	if got := parked.Load(); got != 1 {
		t.Fatalf("one engine holds entries: Parked = %d, want 1", got)
	}
	b.setParked(0)
	b.setParked(0)
	if got := parked.Load(); got != 0 {
		t.Fatalf("none holds entries: Parked = %d, want 0", got)
	}
	if a.parkedN.Load() != 0 || b.parkedN.Load() != 0 {
		t.Error("parkedN not kept")
	}
}
