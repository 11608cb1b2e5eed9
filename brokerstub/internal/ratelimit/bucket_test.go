package ratelimit

import (
	"testing"
	"time"
)

func TestBucketHoldsTheRateAndRefills(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(10, time.Second, now)
	if got := b.Tokens(now); got != 10 {
		t.Fatalf("a new bucket holds %d tokens, want 10 (full)", got)
	}
	if left := b.Consume(10, now); left != 0 {
		t.Fatalf("left %d, want 0", left)
	}
	if w := b.Wait(now); w != 100*time.Millisecond {
		t.Fatalf("wait %v, want 100ms for one token at 10/s", w)
	}
	now = now.Add(100 * time.Millisecond)
	if w := b.Wait(now); w != 0 {
		t.Fatalf("after the wait, wait again %v", w)
	}
	now = now.Add(10 * time.Second)
	if got := b.Tokens(now); got != 10 {
		t.Fatalf("a bucket fills up to its capacity only: %d", got)
	}
}

func TestBucketDebtLengthensThePause(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(10, 2*time.Second, now) // 10 per 2 s: one token each 200ms
	if left := b.Consume(25, now); left != -15 {
		t.Fatalf("left %d, want -15", left)
	}
	if w := b.Wait(now); w != 16*200*time.Millisecond {
		t.Fatalf("wait %v, want 3.2s (16 tokens at 5/s)", w)
	}
}

func TestBucketSetRate(t *testing.T) {
	now := time.Unix(0, 0)
	b := New(100, time.Second, now)
	b.SetRate(5, time.Second, now)
	if got := b.Tokens(now); got != 5 {
		t.Fatalf("lowering the rate caps the tokens: %d, want 5", got)
	}
	if r, p := b.Rate(); r != 5 || p != time.Second {
		t.Fatalf("rate %d/%v", r, p)
	}
	// Non-positive arguments are taken as 1 per second, not a panic.
	b.SetRate(0, 0, now)
	if r, p := b.Rate(); r != 1 || p != time.Second {
		t.Fatalf("rate %d/%v, want 1/1s", r, p)
	}
}

// Over a long run the tokens taken never exceed the rate times the time
// plus one bucketful, whatever the batch sizes.
func TestBucketLongRunRate(t *testing.T) {
	now := time.Unix(0, 0)
	start := now
	b := New(7, time.Second, now)
	var taken int64
	for i := range 1000 {
		if w := b.Wait(now); w > 0 {
			now = now.Add(w)
		}
		n := int64(i%5 + 1)
		b.Consume(n, now)
		taken += n
	}
	// Paid back the last debt: that is when the next batch could go.
	now = now.Add(b.Wait(now))
	if max := 7*now.Sub(start).Seconds() + 7 + 1; float64(taken) > max {
		t.Fatalf("took %d tokens in %v, more than %v", taken, now.Sub(start), max)
	}
	if min := 7*now.Sub(start).Seconds() - 7; float64(taken) < min {
		t.Fatalf("took %d tokens in %v, fewer than %v: the bucket over-throttles", taken, now.Sub(start), min)
	}
}
