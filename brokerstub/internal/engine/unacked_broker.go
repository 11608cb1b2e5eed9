package engine

import (
	"sync/atomic"
	"time"
)

// The broker-wide limit of unacknowledged messages
// (Gates.MaxUnackedMessagesPerBroker), as Pulsar's BrokerService applies
// it: a check 10 minutes after start and every 30 s after sums what the
// Shared and Key_Shared subscriptions of every topic hold unacknowledged.
// At or over the limit the broker is blocked: each subscription holding
// more than its share (limit ×
// MaxUnackedMessagesPerSubscriptionOnBrokerBlocked / 100) stops
// dispatching, and so does any that passes its share while the broker is
// blocked. A blocked subscription resumes when its acks take it below half
// its share, and all resume when a check finds the broker below half the
// limit. The hot path (a delivery, an ack) reads one atomic; the sums are
// taken by the check, on each topic's goroutine.

// Pulsar's schedule of the check (BrokerService: 600 s, then every 30 s).
const (
	UnackedCheckFirst = 600 * time.Second
	UnackedCheckEvery = 30 * time.Second
)

// brokerUnacked is the broker's state of the limit.
type brokerUnacked struct {
	blocked atomic.Bool
	closed  atomic.Bool                 // set by Close: no more checks
	stop    atomic.Pointer[func() bool] // the pending check's timer
}

// unackedLimits returns the broker-wide limit and the share of one
// subscription, both 0 when the limit is off.
func (b *Engine) unackedLimits() (limit, share int64) {
	g := b.cfg.Gates
	if g.MaxUnackedMessagesPerBroker <= 0 || g.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked <= 0 {
		return 0, 0
	}
	limit = int64(g.MaxUnackedMessagesPerBroker)
	return limit, int64(float64(limit) * g.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked / 100)
}

// StartUnackedCheck arms the first check when the limit is on.
func (b *Engine) StartUnackedCheck() {
	if limit, _ := b.unackedLimits(); limit > 0 {
		b.armUnackedCheck(UnackedCheckFirst)
	}
}

func (b *Engine) armUnackedCheck(d time.Duration) {
	stop := b.cfg.Clock.AfterFunc(d, func() {
		if b.unacked.closed.Load() {
			return
		}
		b.checkUnacked()
		if !b.unacked.closed.Load() {
			b.armUnackedCheck(UnackedCheckEvery)
		}
	})
	b.unacked.stop.Store(&stop)
}

// StopUnackedCheck stops the checks (Close).
func (b *Engine) StopUnackedCheck() {
	b.unacked.closed.Store(true)
	if stop := b.unacked.stop.Load(); stop != nil {
		(*stop)()
	}
}

// checkUnacked is one check (Pulsar's checkUnAckMessageDispatching and
// blockDispatchersWithLargeUnAckMessages).
func (b *Engine) checkUnacked() {
	limit, share := b.unackedLimits()
	if limit <= 0 {
		return
	}
	topics := b.LoadedTopics()
	var total int64
	for _, t := range topics {
		_ = t.Call(func() {
			for _, s := range t.Subs {
				if s.unackedLimited() {
					total += s.Unacked
				}
			}
		})
	}
	switch {
	case total >= limit && b.unacked.blocked.CompareAndSwap(false, true):
		b.log.Info("broker reached maxUnackedMessagesPerBroker: blocking the subscriptions over their share",
			"unacked", total, "limit", limit, "share", share)
		for _, t := range topics {
			t.Do(func() {
				for _, s := range t.Subs {
					if s.unackedLimited() && s.Unacked > share {
						s.brokerBlocked = true
					}
				}
			})
		}
	case total < limit/2 && b.unacked.blocked.CompareAndSwap(true, false):
		b.log.Info("broker below half its maxUnackedMessagesPerBroker: unblocking", "unacked", total, "limit", limit)
		for _, t := range topics {
			t.Do(func() {
				for _, s := range t.Subs {
					if s.brokerBlocked {
						s.brokerBlocked = false
						s.Dispatch()
					}
				}
			})
		}
	}
}

// noteBrokerUnacked blocks or unblocks s by its unacknowledged messages
// while the broker is blocked: blocked past its share, unblocked below half
// of it (the caller dispatches). Topic goroutine, after s.unacked changed.
func (s *Subscription) noteBrokerUnacked() {
	if !s.unackedLimited() || !s.t.b.unacked.blocked.Load() {
		return
	}
	_, share := s.t.b.unackedLimits()
	switch {
	case !s.brokerBlocked && s.Unacked > share:
		s.brokerBlocked = true
	case s.brokerBlocked && s.Unacked < share/2:
		s.brokerBlocked = false
	}
}
