package engine

import (
	"encoding/json"
	"math"
	"time"
)

// Message TTL, as Pulsar's PersistentMessageExpiryMonitor: every
// MessageExpiryCheckInterval (Pulsar's messageExpiryCheckIntervalInMinutes)
// each subscription of a topic whose TTL is set — topic policy, else
// namespace policy, else Options.MessageTTL (ttlDurationDefaultInSeconds)
// — has its backlog expired: the mark-delete position moves past the newest
// entry published more than the TTL ago (by the broker's clock), as if a
// consumer had acknowledged everything up to it. Pulsar decides by the
// entry's timestamp, the publish time unless brokers add entry metadata
// (the stub does not). The admin API's expire-messages endpoints run the
// same code.

// messageTTL is the TTL in effect for a topic, in seconds; 0 is none.
func (b *Engine) messageTTL(name TopicName) int64 {
	if raw, ok := b.appliedPolicy(name, "messageTTL"); ok {
		var secs int64
		if json.Unmarshal(raw, &secs) == nil {
			return secs
		}
	}
	return int64(b.cfg.MessageTTL / time.Second)
}

// ExpireMessages expires the subscription's backlog older than ttlSeconds
// (PersistentSubscription.expireMessages): the entries published before
// now - TTL are acknowledged, up to the newest of them. A TTL of 0 or less
// expires nothing, as Pulsar's MessageImpl.isEntryExpired. Topic goroutine.
func (s *Subscription) ExpireMessages(ttlSeconds int64) {
	now := s.t.b.cfg.Clock.Now().UnixMilli()
	if ttlSeconds <= 0 || ttlSeconds >= now/1000 {
		return // no TTL, or none older than it
	}
	cutoff := now - ttlSeconds*1000
	after := s.t.Led.FindByPublishTime(uint64(cutoff))
	if newest, ok := s.t.Led.Prev(after); ok && s.Cur.MarkDelete().Less(newest) {
		s.AckThrough(newest)
	}
}

// checkMessageExpiry expires the backlog of every subscription by the
// topic's TTL (PersistentTopic.checkMessageExpiry). Topic goroutine.
func (t *Topic) checkMessageExpiry() {
	if t.name.Domain != "persistent" {
		return
	}
	ttl := t.b.messageTTL(t.name)
	if ttl <= 0 {
		return
	}
	for _, s := range t.Subs {
		s.ExpireMessages(ttl)
	}
}

// armExpiryCheck schedules the next periodic message expiry.
func (t *Topic) armExpiryCheck() {
	t.timers.stopExpiry = t.b.cfg.Clock.AfterFunc(t.b.cfg.MessageExpiryCheckInterval, func() {
		t.Do(func() {
			t.checkMessageExpiry()
			t.armExpiryCheck()
		})
	})
}

// CheckMessageTTL validates a messageTTL body as Pulsar does; it returns
// the reason it is refused, or "".
func CheckMessageTTL(v json.RawMessage) string {
	var n int64
	if json.Unmarshal(v, &n) != nil || n < 0 || n > math.MaxInt32 { // Pulsar's is an int
		return "Invalid value for message TTL, message TTL must >= 0"
	}
	return ""
}
