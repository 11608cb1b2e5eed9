package brokerstub

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
func (s *subscription) unackedLimited() bool {
	return s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared
}

// availablePermits is what the consumer may be sent now: its permits, or
// none while it or its subscription is blocked on unacknowledged messages
// (Pulsar's Consumer.getAvailablePermits and the dispatcher's block) or its
// subscription waits for its dispatch rate (ratelimit_dispatch.go).
func (cs *consumer) availablePermits() int64 {
	if cs.blocked || cs.sub != nil && (cs.sub.blocked || cs.sub.rl.held) {
		return 0
	}
	return cs.permits
}

// noteDelivered counts n more messages unacknowledged at cs and blocks cs,
// or the whole subscription, at its limit.
func (s *subscription) noteDelivered(cs *consumer, n int64) {
	cs.unacked += n
	s.unacked += n
	if !s.unackedLimited() {
		return
	}
	if l := s.t.limits.unackedPerConsumer; l > 0 && cs.unacked >= l {
		cs.blocked = true
	}
	if l := s.t.limits.unackedPerSub; l > 0 && s.unacked >= l {
		s.blocked = true
	}
	s.noteBrokerUnacked() // unacked_broker.go
}

// noteReleased counts n messages of cs acknowledged (or put back for
// redelivery) and unblocks cs at half its limit, the subscription below
// half of its own (or at none left, for a limit of 1); the caller
// dispatches.
func (s *subscription) noteReleased(cs *consumer, n int64) {
	cs.unacked = max(cs.unacked-n, 0)
	s.unacked = max(s.unacked-n, 0)
	if l := s.t.limits.unackedPerConsumer; cs.blocked && (l <= 0 || cs.unacked <= l/2) {
		cs.blocked = false
	}
	if l := s.t.limits.unackedPerSub; s.blocked && (l <= 0 || s.unacked < l/2 || s.unacked == 0) {
		s.blocked = false
	}
	s.noteBrokerUnacked() // unacked_broker.go
}

// recheckUnacked applies changed limits to the subscription's consumers:
// a raised or removed limit unblocks, a lowered one blocks.
func (s *subscription) recheckUnacked() {
	cl, sl := s.t.limits.unackedPerConsumer, s.t.limits.unackedPerSub
	for _, cs := range s.consumers {
		switch {
		case !s.unackedLimited() || cl <= 0:
			cs.blocked = false
		case cs.unacked >= cl:
			cs.blocked = true
		case cs.unacked <= cl/2:
			cs.blocked = false
		}
	}
	switch {
	case !s.unackedLimited() || sl <= 0:
		s.blocked = false
	case s.unacked >= sl:
		s.blocked = true
	case s.unacked < sl/2 || s.unacked == 0:
		s.blocked = false
	}
}

// forgetUnacked drops every count, after a reset forgot the deliveries.
func (s *subscription) forgetUnacked() {
	s.unacked, s.blocked, s.brokerBlocked = 0, false, false
	for _, cs := range s.consumers {
		cs.unacked, cs.blocked = 0, false
	}
}
