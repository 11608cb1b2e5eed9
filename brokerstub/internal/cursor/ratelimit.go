package cursor

import "time"

// rateLimiter is a non-blocking model of Guava's SmoothBursty RateLimiter as
// Pulsar's ManagedCursorImpl uses it for mark-delete operations
// (RateLimiter.create(rate), tryAcquire()): permits accrue at rate per
// second while unused, up to one second's worth, and the first acquire
// always succeeds.
type rateLimiter struct {
	interval time.Duration // time per permit
	max      float64       // stored permits cap (one second's worth)
	stored   float64
	next     time.Time // next time a fresh permit is free
	started  bool
}

// newRateLimiter returns nil (unlimited) for rate <= 0.
func newRateLimiter(rate float64) *rateLimiter {
	if rate <= 0 {
		return nil
	}
	iv := time.Duration(float64(time.Second) / rate)
	if iv <= 0 {
		iv = 1
	}
	return &rateLimiter{interval: iv, max: rate}
}

// tryAcquire takes one permit if one is available at now.
func (r *rateLimiter) tryAcquire(now time.Time) bool {
	if r == nil {
		return true
	}
	if !r.started {
		r.started = true
		r.next = now
	}
	if now.Before(r.next) {
		return false
	}
	// Resync: permits accrued since next.
	r.stored = min(r.max, r.stored+float64(now.Sub(r.next))/float64(r.interval))
	r.next = now
	if r.stored >= 1 {
		r.stored--
		return true
	}
	// Take a fresh permit: the next one is free one (partial) interval later.
	r.next = now.Add(time.Duration((1 - r.stored) * float64(r.interval)))
	r.stored = 0
	return true
}
