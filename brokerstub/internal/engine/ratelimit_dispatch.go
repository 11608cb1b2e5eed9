package engine

import (
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ratelimit"
)

// Dispatch rate limits, as Pulsar's dispatchers apply them: a subscription
// sends while the broker's, its topic's and its own dispatch buckets all
// hold a token; each entry sent is charged to all three (its messages, or
// 1 with RateLimits.DispatchCountsEntries, and its bytes), so that the last
// entry may overdraw them and the next read waits longer. A subscription
// that runs out arms one timer on Options.Clock for when the tokens are
// back and sends nothing meanwhile: its consumers' permits count as 0
// (availablePermits). Non-persistent topics are not throttled (Pulsar's
// dispatch rate limiters are the persistent dispatchers'). All on the
// topic goroutine, but for the broker's buckets, which are shared.

// backloggedEntries is Pulsar's managedLedgerCursorBackloggedThreshold: a
// subscription this many entries behind or more is backlogged, and
// throttled even with RateLimits.DispatchSparesCaughtUp.
const backloggedEntries = 1000

// statsInterval is how often Pulsar updates a topic's average publish rate
// (statsUpdateFrequencyInSecs), which a dispatch rate relative to the
// publish rate adds to itself.
const statsInterval = 60 * time.Second

// topicRates are a topic's rate limits in effect (policies resolved by
// applyRates) and their buckets.
type topicRates struct {
	dispatch *RatePair // the topic's dispatch buckets; nil: none
	subSpec  rateSpec  // each subscription's dispatch rate
	// publish are the topic's publish buckets, read by connection
	// goroutines (ratelimit_publish.go); nil: none.
	publish atomic.Pointer[RatePair]
	// published counts the messages and bytes SENT to the topic, for its
	// average publish rate (connection goroutines add).
	publishedMsgs, publishedBytes atomic.Int64
	// The average publish rate over the last stats interval, and where
	// that interval started. Topic goroutine.
	pubRateMsgs, pubRateBytes int64
	pubMark                   time.Time
	pubMarkMsgs, pubMarkBytes int64
	// subscribe is the subscribe rate per consumer and its buckets by
	// consumer (ratelimit_subscribe.go).
	subscribe   rateSpec
	subscribers map[subscriberKey]*ratelimit.Bucket
}

// subRates is a subscription's dispatch throttling state. Topic goroutine.
type subRates struct {
	pair   *RatePair
	spec   rateSpec // the spec pair was made for
	inited bool
	// held is set while a bucket is empty; wake is the timer that ends it.
	held bool
	wake func() bool
}

// applyRates resolves the topic's rate limits from its policies, its
// namespace's and the broker's, keeping the buckets of a rate that did not
// change. Topic goroutine; on load and on every policy change.
func (t *Topic) applyRates() {
	b, now := t.b, t.b.cfg.Clock.Now()
	r := &t.rates
	if r.pubMark.IsZero() {
		r.pubMark = now
	}
	r.dispatch = r.dispatch.renew(b.dispatchRateFor(t.name, topicDispatch), now)
	r.subSpec = b.dispatchRateFor(t.name, subscriptionDispatch)
	r.publish.Store(r.publish.Load().renew(b.publishRateFor(t.name), now))
	if spec := b.subscribeRateFor(t.name); spec != r.subscribe {
		r.subscribe, r.subscribers = spec, nil
	}
}

// subPair returns the subscription's dispatch buckets, made anew when its
// rate changed (applyRates).
func (s *Subscription) subPair() *RatePair {
	if spec := s.t.rates.subSpec; !s.rl.inited || s.rl.spec != spec {
		s.rl.pair, s.rl.spec, s.rl.inited = newRatePair(spec, s.t.b.cfg.Clock.Now()), spec, true
	}
	return s.rl.pair
}

// dispatchLimited reports whether any dispatch rate applies to s.
func (s *Subscription) dispatchLimited() bool {
	return s.subPair() != nil || s.t.rates.dispatch != nil || s.t.b.brokerRates().dispatch != nil
}

// rateHeld reports whether s must wait for its dispatch rates, arming the
// timer that dispatches again when they allow.
func (s *Subscription) rateHeld() bool {
	if !s.rl.held && !s.dispatchLimited() {
		return false
	}
	now := s.t.b.cfg.Clock.Now()
	s.relativeRates(now)
	w := max(s.t.b.brokerRates().dispatch.Wait(now), s.t.rates.dispatch.Wait(now), s.subPair().Wait(now))
	if w == 0 {
		s.rl.held = false
		return false
	}
	s.rl.held = true
	if s.rl.wake == nil {
		t := s.t
		s.rl.wake = t.b.cfg.Clock.AfterFunc(w, func() {
			t.Do(func() {
				s.rl.wake = nil
				if t.Subs[s.name] == s {
					s.Dispatch()
				}
			})
		})
	}
	return true
}

// chargeDispatch charges an entry sent (msgs messages, size bytes) to the
// dispatch rates and holds the subscription once one of them runs out.
func (s *Subscription) chargeDispatch(msgs int64, size int) {
	if !s.dispatchLimited() {
		return
	}
	r := s.t.b.cfg.RateLimits
	if r.DispatchSparesCaughtUp && !s.backlogged() {
		return
	}
	if r.DispatchCountsEntries {
		msgs = 1
	}
	now := s.t.b.cfg.Clock.Now()
	for _, p := range []*RatePair{s.t.b.brokerRates().dispatch, s.t.rates.dispatch, s.subPair()} {
		p.consume(msgs, int64(size), now)
		if p.Wait(now) > 0 {
			s.rl.held = true
		}
	}
}

// backlogged reports whether s is backloggedEntries or more behind.
func (s *Subscription) backlogged() bool {
	last, ok := s.t.Led.Last()
	return ok && s.Cur.Backlog(last) >= backloggedEntries
}

// relativeRates brings the rates relative to the publish rate up to date:
// the topic's average publish rate over the last stats interval is added.
func (s *Subscription) relativeRates(now time.Time) {
	t := s.t
	if !t.rates.subSpec.relative && (t.rates.dispatch == nil || !t.rates.dispatch.spec.relative) {
		return
	}
	r := &t.rates
	if d := now.Sub(r.pubMark); d >= statsInterval {
		msgs, bytes := r.publishedMsgs.Load(), r.publishedBytes.Load()
		r.pubRateMsgs = int64(float64(msgs-r.pubMarkMsgs) / d.Seconds())
		r.pubRateBytes = int64(float64(bytes-r.pubMarkBytes) / d.Seconds())
		r.pubMark, r.pubMarkMsgs, r.pubMarkBytes = now, msgs, bytes
	}
	r.dispatch.relativeTo(r.pubRateMsgs, r.pubRateBytes, now)
	s.subPair().relativeTo(r.pubRateMsgs, r.pubRateBytes, now)
}
