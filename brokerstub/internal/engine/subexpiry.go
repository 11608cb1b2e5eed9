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
	return b.Cfg.Lifecycle.SubscriptionExpiration
}

// checkInactiveSubscriptions is one run of
// BrokerService.checkInactiveSubscriptions.
func (b *Engine) checkInactiveSubscriptions() {
	now := b.Cfg.Clock.Now()
	for _, t := range b.LoadedTopics() {
		if t.Name.Domain != "persistent" {
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
		if s := t.Subs[name]; s == nil || !s.Durable {
			delete(t.life.subIdleSince, name)
		}
	}
	exp := t.B.subscriptionExpiration(t.Name)
	for name, s := range t.Subs {
		if !s.Durable || name == compactionSubscription {
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
	s.DisconnectAll(false)
	delete(t.Subs, s.Name)
	delete(t.life.subIdleSince, s.Name)
	if err := t.B.St.DeleteCursor(t.Name.Full, s.Name); err != nil {
		t.B.Log.Warn("delete expired subscription", "topic", t.Name.Full, "subscription", s.Name, "err", err)
		return
	}
	t.B.Log.Info("subscription deleted for inactivity", "topic", t.Name.Full, "subscription", s.Name)
	t.trimLedgers() // what only it kept may go now (retention.go)
}

// subscriptionIdle notes that s lost its last consumer: its idle time
// counts from now. Topic goroutine.
func (t *Topic) subscriptionIdle(s *Subscription) {
	if !s.Durable || len(s.Consumers) > 0 {
		return
	}
	if t.life.subIdleSince == nil {
		t.life.subIdleSince = map[string]time.Time{}
	}
	t.life.subIdleSince[s.Name] = t.B.Cfg.Clock.Now()
}
