package backoff

import (
	"testing"
	"time"
)

func TestBackoffGrowsToMaxAndResets(t *testing.T) {
	b := New(100*time.Millisecond, 1*time.Second)
	var last time.Duration
	for i := 0; i < 10; i++ {
		d := b.Next()
		if d > 1200*time.Millisecond || d < 100*time.Millisecond {
			t.Fatalf("step %d: %v outside [100ms, 1.2s]", i, d)
		}
		if i < 3 && d < last {
			t.Fatalf("step %d: %v shrank from %v", i, d, last)
		}
		last = d
	}
	if last < time.Second || !b.IsMaxBackoffReached() {
		t.Fatalf("did not reach the max: %v (reached %v)", last, b.IsMaxBackoffReached())
	}
	b.Reset()
	if b.IsMaxBackoffReached() {
		t.Fatal("max still reached after Reset")
	}
	if d := b.Next(); d < 100*time.Millisecond || d > 120*time.Millisecond {
		t.Fatalf("after reset: %v", d)
	}
}

func TestBackoffDefaults(t *testing.T) {
	for _, b := range []*Backoff{New(0, 0), NewDefault()} {
		if d := b.Next(); d < DefaultInitial || d > DefaultInitial*6/5 {
			t.Fatalf("first delay %v, want [100ms, 120ms]", d)
		}
	}
}

// The official client's sequence: each delay at least 1.6 times and at
// most 2.5 times the previous one until the cap, then [60s, 72s].
func TestDefaultSequenceAsOfficial(t *testing.T) {
	b := NewDefault()
	prev := b.Next()
	for prev < 51*time.Second {
		d := b.Next()
		if float64(d) < 1.6*float64(prev) || float64(d)*0.8 > 2*float64(prev) {
			t.Fatalf("%v after %v", d, prev)
		}
		// The step reaches the cap before the delay does, give or take the
		// jitter: a delay below the cap is never "max reached" (one above it
		// may be a jittered step below the cap).
		if b.IsMaxBackoffReached() && d < DefaultMax {
			t.Fatalf("IsMaxBackoffReached %v at %v", b.IsMaxBackoffReached(), d)
		}
		prev = d
	}
	for range 3 {
		if d := b.Next(); d < DefaultMax || d > DefaultMax*6/5 || !b.IsMaxBackoffReached() {
			t.Fatalf("capped delay %v (reached %v)", d, b.IsMaxBackoffReached())
		}
	}
}

func TestWithInitial(t *testing.T) {
	b := NewWithInitial(time.Second)
	if d := b.Next(); d < time.Second || d > 1200*time.Millisecond {
		t.Fatalf("first delay %v, want [1s, 1.2s]", d)
	}
	if d := NewWithInitial(10 * time.Millisecond).Next(); d < DefaultInitial {
		t.Fatalf("first delay %v below the 100ms floor", d)
	}
	b.Reset()
	if d := b.Next(); d > DefaultInitial*6/5 {
		t.Fatalf("after Reset %v, want the official 100ms", d)
	}
}
