// Package backoff computes reconnect delays as the official Pulsar Go
// client does: exponential growth from a minimum to a maximum, with up to
// 20% of jitter added so that many clients reconnecting to one broker do
// not retry in lockstep. It is the one definition behind pulsar/backoff
// (whose Policy and DefaultBackoff alias Policy and Backoff) and the
// engines' reconnect loops.
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

// jitterPercent is the most jitter added to a step, in percent of it.
const jitterPercent = 20

// Policy computes the delays between retries; the official client's
// backoff.Policy. Producers, consumers and readers take one per
// reconnecting partition (BackOffPolicyFunc options).
type Policy interface {
	// Next returns the delay to wait before the next retry.
	Next() time.Duration
	// IsMaxBackoffReached reports whether the delays reached their maximum
	// (a policy that reconnects a limited number of times stops then).
	IsMaxBackoffReached() bool
	// Reset starts again from the first delay, after a success.
	Reset()
}

// Backoff is the default Policy: each step doubles the previous one,
// within [min, max], and Next adds up to 20% of the step at random. It is
// not safe for concurrent use; each reconnecting producer or consumer
// keeps its own.
type Backoff struct {
	min, max time.Duration
	cur      time.Duration // the last step; 0 before the first
}

// New returns a Backoff whose first step is initial, doubling up to max;
// zero values take DefaultInitial and DefaultMax.
func New(initial, max time.Duration) *Backoff {
	if initial <= 0 {
		initial = DefaultInitial
	}
	if max < initial {
		max = DefaultMax
	}
	return &Backoff{min: initial, max: max}
}

// NewDefault returns the official client's default backoff: 100 ms,
// doubling up to 60 s.
func NewDefault() *Backoff { return New(DefaultInitial, DefaultMax) }

// NewWithInitial returns the official client's default backoff started at
// initial: the first step is initial (at least 100 ms) and the steps double
// up to 60 s. As in the official client, Reset goes back to 100 ms, not to
// initial.
func NewWithInitial(initial time.Duration) *Backoff {
	b := NewDefault()
	b.cur = initial / 2
	return b
}

// Next returns the delay before the next attempt: the next step (double the
// last, within [min, max]) plus up to 20% of it at random.
func (b *Backoff) Next() time.Duration {
	b.cur = min(max(2*b.cur, b.min), b.max)
	return b.cur + time.Duration(rand.Int64N(int64(b.cur)*jitterPercent/100+1))
}

// IsMaxBackoffReached reports whether the steps reached the maximum.
func (b *Backoff) IsMaxBackoffReached() bool { return b.cur >= b.max }

// Reset starts again from the first step, after a success.
func (b *Backoff) Reset() { b.cur = 0 }
