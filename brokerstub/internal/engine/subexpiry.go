package engine

import (
	"encoding/json"
	"time"
)

// Subscription expiry, as Pulsar's PersistentTopic.checkInactiveSubscriptions:
// every Lifecycle.SubscriptionExpiryCheckInterval
// (subscriptionExpiryCheckIntervalInMinutes) each durable subscription of a
// loaded persistent topic that has had no consumer for longer than the
// expiration time is deleted with its cursor, as the admin API deletes a
// subscription. The time is the topic's subscriptionExpirationTime policy,
// else its namespace's subscription_expiration_time_minutes, else
// Lifecycle.SubscriptionExpiration (subscriptionExpirationTimeMinutes); 0
// is never. A subscription's idle time counts from when its last consumer
// left or, for one that never had a consumer since the topic was loaded
// (one created over the admin API, or restored after a Restart), from the
// first check that finds it without one: at most one interval later than
// Pulsar, whose cursor counts from its creation or recovery.

// subscriptionExpiration is the expiration time in effect for a topic; 0
// is never.
func (b *Engine) subscriptionExpiration(name TopicName) time.Duration {
	if raw, ok := b.appliedPolicy(name, "subscriptionExpirationTime"); ok {
		var minutes int64
		if json.Unmarshal(raw, &minutes) == nil {
			return time.Duration(max(minutes, 0)) * time.Minute
		}
	}
	return b.cfg.Lifecycle.SubscriptionExpiration
}

// checkInactiveSubscriptions is one run of
// BrokerService.checkInactiveSubscriptions.
func (b *Engine) checkInactiveSubscriptions() {
	now := b.cfg.Clock.Now()
	for _, t := range b.LoadedTopics() {
		if t.name.Domain != "persistent" {
			continue
		}
		_ = t.Call(func() { t.expireSubscriptions(now) })
	}
}

// expireSubscriptions deletes the durable subscriptions idle for longer
// than the topic's expiration time. Topic goroutine.
func (t *Topic) expireSubscriptions(now time.Time) {
	if t.life.subIdleSince == nil {
		t.life.subIdleSince = map[string]time.Time{}
	}
	for name := range t.life.subIdleSince {
		if s := t.Subs[name]; s == nil || !s.durable {
			delete(t.life.subIdleSince, name)
		}
	}
	exp := t.b.subscriptionExpiration(t.name)
	for name, s := range t.Subs {
		if !s.durable || name == compactionSubscription {
			continue
		}
		since, seen := t.life.subIdleSince[name]
		switch {
		case len(s.Consumers) > 0 || !seen:
			t.life.subIdleSince[name] = now
		case exp > 0 && now.Sub(since) > exp:
			t.deleteExpiredSubscription(s)
		}
	}
}

// deleteExpiredSubscription deletes a subscription without consumers.
// Topic goroutine.
func (t *Topic) deleteExpiredSubscription(s *Subscription) {
	s.disconnectAll(false)
	delete(t.Subs, s.name)
	delete(t.life.subIdleSince, s.name)
	if err := t.b.st.DeleteCursor(t.name.Full, s.name); err != nil {
		t.b.log.Warn("delete expired subscription", "topic", t.name.Full, "subscription", s.name, "err", err)
		return
	}
	t.b.log.Info("subscription deleted for inactivity", "topic", t.name.Full, "subscription", s.name)
	t.trimLedgers() // what only it kept may go now (retention.go)
}

// subscriptionIdle notes that s lost its last consumer: its idle time
// counts from now. Topic goroutine.
func (t *Topic) subscriptionIdle(s *Subscription) {
	if !s.durable || len(s.Consumers) > 0 {
		return
	}
	if t.life.subIdleSince == nil {
		t.life.subIdleSince = map[string]time.Time{}
	}
	t.life.subIdleSince[s.name] = t.b.cfg.Clock.Now()
}
