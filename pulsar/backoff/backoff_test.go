package backoff

import (
	"testing"
	"time"
)

// The official client's bounds: the first delay in [100ms, 120ms], 60 s
// plus up to 20% at the cap, Reset back to the start.
func TestDefaultBackoffAsOfficial(t *testing.T) {
	b := NewDefaultBackoff()
	if d := b.Next(); d < 100*time.Millisecond || d > 120*time.Millisecond {
		t.Fatalf("first delay %v", d)
	}
	// The steps double from 100 ms to the 60 s cap, each with up to 20 %
	// jitter added (so a step below the cap may already exceed 60 s).
	var d time.Duration
	for range 64 {
		if d = b.Next(); b.IsMaxBackoffReached() {
			break
		}
	}
	if !b.IsMaxBackoffReached() || d < 60*time.Second || d > 72*time.Second {
		t.Fatalf("capped delay %v, max reached %v", d, b.IsMaxBackoffReached())
	}
	b.Reset()
	if b.IsMaxBackoffReached() {
		t.Fatal("max reached after Reset")
	}
	if _, ok := b.(*DefaultBackoff); !ok {
		t.Fatalf("NewDefaultBackoff returned %T", b)
	}
	w := NewDefaultBackoffWithInitialBackOff(2 * time.Second)
	if d := w.Next(); d < 2*time.Second || d > 2400*time.Millisecond {
		t.Fatalf("first delay with a 2s initial backoff: %v", d)
	}
}
