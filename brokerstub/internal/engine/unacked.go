package engine

import "github.com/pulsargo/sdk/internal/proto"

// Unacknowledged-message limits of Shared and Key_Shared subscriptions, as
// Pulsar's Consumer and PersistentDispatcherMultipleConsumers apply them:
// every message delivered and not yet acknowledged counts (a batch entry
// counts its messages) at its consumer and at the subscription. A consumer
// that reaches Limits.MaxUnackedMessagesPerConsumer (or the topic's or
// namespace's policy) is blocked — it gets nothing, whatever its permits —
// until its acks bring it down to half the limit; a subscription that
// reaches MaxUnackedMessagesPerSubscription dispatches nothing until its
// consumers hold fewer than half. Pulsar may overshoot the per-subscription
// limit by one read batch; the stub stops at the limit exactly. The stats'
// blockedConsumerOnUnackedMsgs and blockedSubscriptionOnUnackedMsgs say
// when. All on the topic goroutine.

// unackedLimited reports whether the subscription's type has the limits.
func (s *Subscription) unackedLimited() bool {
	return s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared
}

// availablePermits is what the consumer may be sent now: its permits, or
// none while it or its subscription is blocked on unacknowledged messages
// (Pulsar's Consumer.getAvailablePermits and the dispatcher's block) or its
// subscription waits for its dispatch rate (ratelimit_dispatch.go).
func (cs *Consumer) availablePermits() int64 {
	if cs.Blocked || cs.sub != nil && (cs.sub.Blocked || cs.sub.rl.held) {
		return 0
	}
	return cs.Permits
}

// noteDelivered counts n more messages unacknowledged at cs and blocks cs,
// or the whole subscription, at its limit.
func (s *Subscription) noteDelivered(cs *Consumer, n int64) {
	cs.Unacked += n
	s.Unacked += n
	if !s.unackedLimited() {
		return
	}
	if l := s.t.limits.unackedPerConsumer; l > 0 && cs.Unacked >= l {
		cs.Blocked = true
	}
	if l := s.t.limits.unackedPerSub; l > 0 && s.Unacked >= l {
		s.Blocked = true
	}
	s.noteBrokerUnacked() // unacked_broker.go
}

// noteReleased counts n messages of cs acknowledged (or put back for
// redelivery) and unblocks cs at half its limit, the subscription below
// half of its own (or at none left, for a limit of 1); the caller
// dispatches.
func (s *Subscription) noteReleased(cs *Consumer, n int64) {
	cs.Unacked = max(cs.Unacked-n, 0)
	s.Unacked = max(s.Unacked-n, 0)
	if l := s.t.limits.unackedPerConsumer; cs.Blocked && (l <= 0 || cs.Unacked <= l/2) {
		cs.Blocked = false
	}
	if l := s.t.limits.unackedPerSub; s.Blocked && (l <= 0 || s.Unacked < l/2 || s.Unacked == 0) {
		s.Blocked = false
	}
	s.noteBrokerUnacked() // unacked_broker.go
}

// recheckUnacked applies changed limits to the subscription's consumers:
// a raised or removed limit unblocks, a lowered one blocks.
func (s *Subscription) recheckUnacked() {
	cl, sl := s.t.limits.unackedPerConsumer, s.t.limits.unackedPerSub
	for _, cs := range s.Consumers {
		switch {
		case !s.unackedLimited() || cl <= 0:
			cs.Blocked = false
		case cs.Unacked >= cl:
			cs.Blocked = true
		case cs.Unacked <= cl/2:
			cs.Blocked = false
		}
	}
	switch {
	case !s.unackedLimited() || sl <= 0:
		s.Blocked = false
	case s.Unacked >= sl:
		s.Blocked = true
	case s.Unacked < sl/2 || s.Unacked == 0:
		s.Blocked = false
	}
}

// forgetUnacked drops every count, after a reset forgot the deliveries.
func (s *Subscription) forgetUnacked() {
	s.Unacked, s.Blocked, s.brokerBlocked = 0, false, false
	for _, cs := range s.Consumers {
		cs.Unacked, cs.Blocked = 0, false
	}
}
