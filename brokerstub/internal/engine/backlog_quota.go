package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

// quota is the backlog quota in effect for a topic.
type quota struct {
	limitBytes, limitSeconds int64
	policy                   string
}

func (q quota) set() bool { return q.limitBytes > 0 || q.limitSeconds > 0 }

// storedQuota is a backlog quota as the admin API stores it.
type storedQuota struct {
	LimitSize *int64  `json:"limitSize"`
	LimitTime *int64  `json:"limitTime"`
	Policy    *string `json:"policy"`
}

// merge applies one stored quota type on top of q.
func (q *quota) merge(raw json.RawMessage, size bool) {
	var s storedQuota
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	if size && s.LimitSize != nil {
		q.limitBytes = *s.LimitSize
	}
	if !size && s.LimitTime != nil {
		q.limitSeconds = *s.LimitTime
	}
	if s.Policy != nil && *s.Policy != "" {
		q.policy = *s.Policy
	}
}

// backlogQuota returns the quota of a topic: the topic's own, else its
// namespace's, else the broker's default (Options.BacklogQuota), per quota
// type (destination_storage limits bytes, message_age limits seconds).
func (b *Engine) backlogQuota(name TopicName) quota {
	d := b.cfg.BacklogQuota
	q := quota{limitBytes: d.LimitBytes, limitSeconds: d.LimitSeconds, policy: d.Policy}
	pol := b.Pol()
	base := name.Base
	for _, typ := range []string{"destination_storage", "message_age"} {
		size := typ == "destination_storage"
		if raw, ok := pol.TopicPolicy(base, "backlogQuota/"+typ); ok {
			q.merge(raw, size)
			continue
		}
		if raw, ok, _ := pol.NamespacePolicy(name.Namespace, "backlog_quota_map"); ok {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) == nil {
				if v, ok := m[typ]; ok {
					q.merge(v, size)
				}
			}
		}
	}
	if q.policy == "" {
		q.policy = "producer_request_hold"
	}
	return q
}

// quotaExceeded reports whether the topic's backlog is over its quota: the
// bytes of the largest durable subscription backlog (metadata and payload,
// as Pulsar's entry sizes), or the age of the oldest unacknowledged
// message. Topic goroutine.
func (t *Topic) quotaExceeded(q quota) bool {
	if !q.set() {
		return false
	}
	now := t.b.cfg.Clock.Now().UnixMilli()
	for _, s := range t.Subs {
		if !s.durable {
			continue
		}
		if q.limitSeconds > 0 {
			if next, ok := s.Cur.NextUnacked(s.Cur.MarkDelete()); ok {
				if e, ok := t.Led.Get(next); ok && now-int64(e.PublishTime) > q.limitSeconds*1000 {
					return true
				}
			}
		}
		if q.limitBytes > 0 && s.backlogBytes() >= q.limitBytes {
			return true
		}
	}
	return false
}

// backlogBytes is the size of the subscription's unacknowledged entries.
func (s *Subscription) backlogBytes() int64 {
	var n int64
	p := s.Cur.MarkDelete()
	for {
		next, ok := s.Cur.NextUnacked(p)
		if !ok {
			return n
		}
		if e, ok := s.t.Led.Get(next); ok {
			n += int64(len(e.Meta) + len(e.Payload))
		}
		p = next
	}
}

// refuseProducer returns why a new producer may not attach: the topic is
// terminated, or its backlog quota is exceeded (with Pulsar's error for the
// quota's policy). Topic goroutine.
func (t *Topic) refuseProducer() (proto.ServerError, string) {
	if t.adm.terminated {
		return proto.ServerError_TopicTerminatedError, "Topic was already terminated"
	}
	q := t.b.backlogQuota(t.name)
	if q.policy == "consumer_backlog_eviction" || !t.quotaExceeded(q) {
		return 0, ""
	}
	if q.policy == "producer_exception" {
		return proto.ServerError_ProducerBlockedQuotaExceededException, fmt.Sprintf("Cannot create producer on topic with backlog quota exceeded: %s", t.name.Full)
	}
	return proto.ServerError_ProducerBlockedQuotaExceededError, fmt.Sprintf("Cannot create producer on topic with backlog quota exceeded: %s", t.name.Full)
}

// armQuotaCheck schedules the next periodic backlog quota check.
func (t *Topic) armQuotaCheck() {
	every := t.b.cfg.BacklogQuota.CheckInterval
	if every < 0 {
		return
	}
	if every == 0 {
		every = 60 * time.Second
	}
	t.adm.stopQuota = t.b.cfg.Clock.AfterFunc(every, func() {
		t.Do(func() {
			t.checkQuota()
			t.armQuotaCheck()
		})
	})
}

// checkQuota enforces the backlog quota as Pulsar's BacklogQuotaManager:
// producer_request_hold and producer_exception disconnect the producers
// (they are refused when they come back, until the backlog shrinks);
// consumer_backlog_eviction acknowledges the oldest messages of the
// subscriptions over the limit. Topic goroutine.
func (t *Topic) checkQuota() {
	q := t.b.backlogQuota(t.name)
	if !t.quotaExceeded(q) {
		return
	}
	t.b.log.Info("backlog quota exceeded", "topic", t.name.Full, "policy", q.policy)
	if q.policy != "consumer_backlog_eviction" {
		t.closeProducers()
		return
	}
	for _, s := range t.Subs {
		for s.durable && t.quotaExceeded(quota{limitBytes: q.limitBytes, limitSeconds: q.limitSeconds}) {
			next, ok := s.Cur.NextUnacked(s.Cur.MarkDelete())
			if !ok {
				break
			}
			s.ackEntry(next)
		}
		s.persist(false)
	}
}

// stopTimers stops the topic's admin timers when it shuts down.
func (a *topicAdmin) stopTimers() {
	if a.stopQuota != nil {
		a.stopQuota()
	}
}
