// Package backoff computes reconnect delays: exponential growth from an
// initial delay to a maximum, with jitter so that many clients reconnecting
// to one broker do not retry in lockstep.
//
//	b := backoff.New(100*time.Millisecond, 30*time.Second)
//	for attempt := 0; ; attempt++ {
//		if err := connect(); err == nil {
//			break
//		}
//		time.Sleep(b.Next())
//	}
package backoff

import (
	"math/rand/v2"
	"time"
)

// Default delays, as the official Pulsar clients use.
const (
	DefaultInitial = 100 * time.Millisecond
	DefaultMax     = 60 * time.Second
)

// Backoff yields growing delays. It is not safe for concurrent use; each
// reconnecting producer or consumer keeps its own.
type Backoff struct {
	initial, max, next time.Duration
}

// New returns a Backoff starting at initial and doubling up to max; zero
// values take DefaultInitial and DefaultMax.
func New(initial, max time.Duration) *Backoff {
	if initial <= 0 {
		initial = DefaultInitial
	}
	if max < initial {
		max = DefaultMax
	}
	return &Backoff{initial: initial, max: max, next: initial}
}

// Next returns the delay before the next attempt: the current step with up
// to 20% of it subtracted at random, and doubles the step up to the maximum.
func (b *Backoff) Next() time.Duration {
	d := b.next
	b.next = min(b.next*2, b.max)
	jitter := time.Duration(rand.Int64N(int64(d)/5 + 1))
	return d - jitter
}

// Reset starts again from the initial delay, after a success.
func (b *Backoff) Reset() { b.next = b.initial }
