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
		if d > time.Second || d <= 0 {
			t.Fatalf("step %d: %v outside (0, 1s]", i, d)
		}
		if i < 3 && d < last {
			t.Fatalf("step %d: %v shrank from %v", i, d, last)
		}
		last = d
	}
	if last < 800*time.Millisecond {
		t.Fatalf("did not reach the max: %v", last)
	}
	b.Reset()
	if d := b.Next(); d > 100*time.Millisecond {
		t.Fatalf("after reset: %v", d)
	}
}

func TestBackoffDefaults(t *testing.T) {
	b := New(0, 0)
	if d := b.Next(); d > DefaultInitial || d < DefaultInitial*4/5 {
		t.Fatalf("first delay %v", d)
	}
}
