package engine

import (
	"encoding/json"
	"sync"
	"time"
)

// Inactive topic deletion, as Pulsar's BrokerService.checkGC and
// PersistentTopic.checkGC: every Lifecycle.InactiveTopicCheckInterval
// (brokerDeleteInactiveTopicsFrequencySeconds) each loaded topic is asked
// whether it is active: it has producers or consumers, or in the mode
// delete_when_no_subscriptions any subscription, or in the mode
// delete_when_subscriptions_caught_up any subscription with a backlog. A
// topic that has not been active for the max inactive duration, and whose
// retention time does not keep it (a negative retention time keeps it for
// ever, a positive one for that long after it was last active), is deleted
// with its data and subscriptions, as the admin API's DELETE does. The
// mode, duration and on/off come from the topic's inactiveTopicPolicies,
// else its namespace's inactive_topic_policies, else the broker's
// Lifecycle. System topics are never deleted; topics that are stored but
// not loaded (after a Restart, until used) are not checked, as on Pulsar.
// With DeleteInactivePartitionedTopicMetadata, a partitioned topic whose
// partitions have all gone is deleted too.

// inactivePolicy is Pulsar's InactiveTopicPolicies JSON.
type inactivePolicy struct {
	Mode          string `json:"inactiveTopicDeleteMode"`
	MaxInactive   int64  `json:"maxInactiveDurationSeconds"`
	WhileInactive bool   `json:"deleteWhileInactive"`
}

// inactivePolicyFor is the inactive topic policy in effect for a topic.
func (b *Engine) inactivePolicyFor(name TopicName) inactivePolicy {
	l := b.cfg.Lifecycle
	p := inactivePolicy{
		Mode:          l.InactiveTopicDeleteMode,
		MaxInactive:   int64(l.InactiveTopicMaxDuration / time.Second),
		WhileInactive: !l.DisableInactiveTopicDeletion,
	}
	if raw, ok := b.appliedPolicy(name, "inactiveTopicPolicies"); ok {
		var set inactivePolicy
		if json.Unmarshal(raw, &set) == nil {
			p = set
			if p.Mode == "" {
				p.Mode = DeleteWhenNoSubscriptions
			}
		}
	}
	return p
}

// lifeState is a topic's part of the lifecycle checks. Owned by the topic
// goroutine.
type lifeState struct {
	// lastActive is when the topic was last seen active, or loaded.
	lastActive time.Time
	// subIdleSince is when each durable subscription was last seen with a
	// consumer, or lost its last one (subexpiry.go).
	subIdleSince map[string]time.Time
	// stopRollover cancels the periodic ledger rollover check (rollover.go).
	stopRollover func() bool
}

// inactiveVerdict reports whether the topic is to be deleted now for
// inactivity, updating when it was last active. Topic goroutine.
func (t *Topic) inactiveVerdict(now time.Time) bool {
	if exemptFromLimits(t.name) { // system topics
		return false
	}
	p := t.b.inactivePolicyFor(t.name)
	if !p.WhileInactive {
		return false
	}
	if t.active(p.Mode) {
		t.life.lastActive = now
		return false
	}
	idle := now.Sub(t.life.lastActive)
	if idle < time.Duration(p.MaxInactive)*time.Second {
		return false
	}
	// PersistentTopic.shouldTopicBeRetained: the retention time keeps an
	// inactive topic that long.
	if r := t.b.Retention(t.name).Time; r < 0 || idle < r {
		return false
	}
	return true
}

// active is PersistentTopic.isActive(mode). Topic goroutine.
func (t *Topic) active(mode string) bool {
	if len(t.producers) > 0 {
		return true
	}
	for _, s := range t.Subs {
		if len(s.Consumers) > 0 {
			return true
		}
		if mode == DeleteWhenSubscriptionsCaughtUp {
			if last, ok := t.Led.Last(); ok && s.Cur.Backlog(last) > 0 {
				return true
			}
		} else {
			return true // a subscription keeps the topic
		}
	}
	return false
}

// sweeps are the broker's periodic checks of its loaded topics: inactive
// topics, expired subscriptions, inactive producers of deduplication.
// Each asks the topic goroutines; none reaches into a topic's state.
type sweeps struct {
	mu      sync.Mutex // held while a check runs, and by stop
	stopped bool
	stops   map[int]func() bool
}

// StartSweeps arms the periodic checks (when the broker starts listening).
func (b *Engine) StartSweeps() {
	s := &b.sweeps
	s.mu.Lock()
	s.stopped, s.stops = false, map[int]func() bool{}
	s.mu.Unlock()
	l := b.cfg.Lifecycle
	if !l.DisableInactiveTopicDeletion {
		// As Pulsar, with the broker's deletion off no policy turns it on.
		b.every(0, l.InactiveTopicCheckInterval, b.checkInactiveTopics)
	}
	b.every(1, l.SubscriptionExpiryCheckInterval, b.checkInactiveSubscriptions) // subexpiry.go
	b.every(2, max(l.DedupProducerInactivityTimeout/3, time.Second), b.purgeInactiveProducers)
}

// StopSweeps cancels the checks and waits for one that is running.
func (b *Engine) StopSweeps() {
	s := &b.sweeps
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	for _, stop := range s.stops {
		stop()
	}
	s.stops = nil
}

// every runs f each d, in slot k of the sweeps.
func (b *Engine) every(k int, d time.Duration, f func()) {
	s := &b.sweeps
	var arm func()
	arm = func() { // s.mu held
		s.stops[k] = b.cfg.Clock.AfterFunc(d, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.stopped {
				return
			}
			f()
			arm()
		})
	}
	s.mu.Lock()
	arm()
	s.mu.Unlock()
}

// checkInactiveTopics is one run of BrokerService.checkGC.
func (b *Engine) checkInactiveTopics() {
	now := b.cfg.Clock.Now()
	for _, t := range b.LoadedTopics() {
		var gone bool
		if t.Call(func() { gone = t.inactiveVerdict(now) }) != nil || !gone {
			continue
		}
		if b.deleteInactive(t, now) {
			b.log.Info("topic deleted for inactivity", "topic", t.name.Full)
			b.topicsChanged()
			b.deleteInactivePartitioned(t.name)
		}
	}
}

// deleteInactive deletes t if it is still loaded and, asked again on its
// goroutine while b.mu keeps new clients from finding it, still to be
// deleted. A client that found it before waits for it to stop and then
// retries, as with the admin API's delete.
func (b *Engine) deleteInactive(t *Topic, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || b.topics[t.name.Full] != t {
		return false
	}
	gone := false
	if t.Call(func() {
		if gone = t.inactiveVerdict(now); gone {
			t.closeClients()
		}
	}) != nil || !gone {
		return false
	}
	delete(b.topics, t.name.Full)
	t.stop(false)
	if err := b.st.DeleteTopic(t.name.Full); err != nil {
		b.log.Warn("delete inactive topic", "topic", t.name.Full, "err", err)
		return false
	}
	if err := b.ForgetTopicGrants(t.name); err != nil {
		b.log.Warn("delete inactive topic grants", "topic", t.name.Full, "err", err)
	}
	if err := b.Pol().ForgetTopic(t.name.Full); err != nil {
		b.log.Warn("delete inactive topic policies", "topic", t.name.Full, "err", err)
	}
	return true
}

// deleteInactivePartitioned deletes the metadata of the partitioned topic
// of a partition deleted for inactivity once none of its partitions is
// left (PersistentTopic.tryToDeletePartitionedMetadata), with
// DeleteInactivePartitionedTopicMetadata.
func (b *Engine) deleteInactivePartitioned(name TopicName) {
	if !b.cfg.Lifecycle.DeleteInactivePartitionedTopicMetadata || name.Partition < 0 {
		return
	}
	base, err := ParseTopic(name.Base)
	if err != nil {
		return
	}
	n := b.PartitionCount(base.Full)
	if n == 0 {
		return
	}
	stored, _ := b.st.Topics()
	have := map[string]bool{}
	for _, full := range stored {
		have[full] = true
	}
	b.mu.Lock()
	for full := range b.topics {
		have[full] = true
	}
	b.mu.Unlock()
	for i := range n {
		if have[PartitionName(base.Full, i)] {
			return
		}
	}
	if err := b.st.SetPartitions(base.Full, 0); err != nil {
		b.log.Warn("delete inactive partitioned topic", "topic", base.Full, "err", err)
		return
	}
	_ = b.ForgetTopicGrants(base)
	_ = b.Pol().ForgetTopic(base.Full)
	b.topicsChanged()
	b.log.Info("partitioned topic deleted for inactivity", "topic", base.Full)
}

// The modes of InactiveTopicDeleteMode (Pulsar's InactiveTopicDeleteMode).
const (
	DeleteWhenNoSubscriptions       = "delete_when_no_subscriptions"
	DeleteWhenSubscriptionsCaughtUp = "delete_when_subscriptions_caught_up"
)
