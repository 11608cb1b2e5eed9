// Package ratelimit is the token bucket behind brokerstub's rate limits, as
// Pulsar's AsyncTokenBucket: a bucket holds up to rate tokens, fills at rate
// tokens per period, starts full, and may be drawn below zero (a batch
// larger than what is left is still let through, and the debt is paid by a
// longer pause). It takes the time from its caller, so that it needs no
// clock of its own and a test can drive it with any clock.
//
//	b := ratelimit.New(10, time.Second, now)
//	b.Consume(10, now)     // the bucket is empty
//	b.Wait(now)            // 100ms: the time until one token is back
//	b.Tokens(now.Add(time.Second)) // 10
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Bucket is a token bucket. Safe for concurrent use: a broker-wide bucket
// is drawn from by every topic.
type Bucket struct {
	mu     sync.Mutex
	rate   int64         // tokens per period, > 0
	period time.Duration // > 0
	tokens float64       // may be negative
	last   time.Time     // when tokens was last brought up to date
}

// New returns a full bucket of rate tokens per period (rate and period are
// taken as 1 and a second when not positive).
func New(rate int64, period time.Duration, now time.Time) *Bucket {
	rate, period = norm(rate, period)
	return &Bucket{rate: rate, period: period, tokens: float64(rate), last: now}
}

func norm(rate int64, period time.Duration) (int64, time.Duration) {
	if rate <= 0 {
		rate = 1
	}
	if period <= 0 {
		period = time.Second
	}
	return rate, period
}

// fill adds the tokens earned since last, up to the capacity. b.mu held.
func (b *Bucket) fill(now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		t := b.tokens + float64(b.rate)*float64(d)/float64(b.period)
		// A pause computed by Wait must end with the token it waited for:
		// float rounding may leave it a hair short.
		if r := math.Round(t); math.Abs(t-r) < 1e-6 {
			t = r
		}
		b.tokens = math.Min(t, float64(b.rate))
		b.last = now
	}
}

// Rate returns the bucket's rate: tokens per period.
func (b *Bucket) Rate() (int64, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rate, b.period
}

// SetRate changes the rate from now on; the tokens earned so far at the old
// rate are kept, up to the new capacity.
func (b *Bucket) SetRate(rate int64, period time.Duration, now time.Time) {
	rate, period = norm(rate, period)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fill(now)
	b.rate, b.period = rate, period
	b.tokens = math.Min(b.tokens, float64(rate))
}

// Consume takes n tokens, going below zero if need be, and returns whole
// tokens left (negative while in debt).
func (b *Bucket) Consume(n int64, now time.Time) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fill(now)
	b.tokens -= float64(n)
	return int64(math.Floor(b.tokens))
}

// Tokens returns the whole tokens in the bucket now (negative while in
// debt).
func (b *Bucket) Tokens(now time.Time) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fill(now)
	return int64(math.Floor(b.tokens))
}

// Wait returns how long until the bucket holds a whole token: 0 when it
// holds one now.
func (b *Bucket) Wait(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fill(now)
	if b.tokens >= 1 {
		return 0
	}
	need := 1 - b.tokens
	d := time.Duration(math.Ceil(need * float64(b.period) / float64(b.rate)))
	return max(d, time.Nanosecond)
}
