package engine

import (
	"encoding/json"
	"math"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Retention, as Pulsar's ManagedLedgerImpl trims ledgers: whole ledgers
// that every durable subscription has consumed are deleted, oldest first,
// unless the topic's retention policy keeps them (by age, by size; see
// ledger.Trimmable for the exact rules). A new subscription at Earliest, a
// reader from the start, a seek back and the admin API's stats and
// messages then see only what is retained. The ledger being written is
// never deleted, so with the default 50,000 entries per ledger a test sees
// retention only with a smaller LedgerRolloverEntries
// (managedLedgerMaxEntriesPerLedger), as on Pulsar. Topics trim when a
// subscription's mark-delete position moves, when a ledger fills up, and
// every RetentionCheckInterval (Pulsar's retentionCheckIntervalInSeconds).

// RetentionPolicy is Pulsar's RetentionPolicies JSON, as the admin API
// stores it.
type RetentionPolicy struct {
	TimeInMinutes FlexInt `json:"retentionTimeInMinutes"`
	SizeInMB      FlexInt `json:"retentionSizeInMB"`
}

const megaByte = 1024 * 1024

// Retention converts the policy; limits too large to count in
// nanoseconds or bytes are no limit.
func (p RetentionPolicy) Retention() ledger.Retention {
	r := ledger.Retention{Time: -1, Size: -1}
	if tm := int64(p.TimeInMinutes); tm >= 0 && tm <= math.MaxInt64/int64(time.Minute) {
		r.Time = time.Duration(tm) * time.Minute
	}
	if sz := int64(p.SizeInMB); sz >= 0 && sz <= math.MaxInt64/megaByte {
		r.Size = sz * megaByte
	}
	return r
}

// CheckRetention validates a retention policy body as Pulsar's
// validateRetentionPolicies; it returns the reason it is refused, or "".
func CheckRetention(v json.RawMessage) string {
	var p RetentionPolicy
	if err := json.Unmarshal(v, &p); err != nil {
		return "Invalid retention policy: " + err.Error()
	}
	tm, sz := int64(p.TimeInMinutes), int64(p.SizeInMB)
	switch {
	case sz < -1:
		return "Invalid retention policy: size limit must be >= -1"
	case tm < -1:
		return "Invalid retention policy: time limit must be >= -1"
	case (tm == 0) != (sz == 0):
		return "Invalid retention policy: Setting a single time or size limit to 0 is invalid when " +
			"one of the limits has a non-zero value. Use the value of -1 instead of 0 to ignore a " +
			"specific limit. To disable retention both limits must be set to 0."
	}
	return ""
}

// appliedPolicy returns the policy in effect for a topic: its own
// topic-level policy (set on the topic or, for a partition, on its
// partitioned topic), else its namespace's (topicToNamespacePolicy names
// the field), and whether either is set.
func (b *Engine) appliedPolicy(name TopicName, topicField string) (json.RawMessage, bool) {
	pol := b.Pol()
	if v, ok := pol.TopicPolicy(name.Base, topicField); ok && string(v) != "null" {
		return v, true
	}
	if nsField, ok := TopicToNamespacePolicy[topicField]; ok {
		if v, ok, _ := pol.NamespacePolicy(name.Namespace, nsField); ok && string(v) != "null" {
			return v, true
		}
	}
	return nil, false
}

// Retention is the retention policy in effect for a topic: the topic's,
// else its namespace's, else Options.Retention.
func (b *Engine) Retention(name TopicName) ledger.Retention {
	if raw, ok := b.appliedPolicy(name, "retention"); ok {
		var p RetentionPolicy
		if json.Unmarshal(raw, &p) == nil {
			return p.Retention()
		}
	}
	return b.cfg.Retention
}

// slowestDurable returns the persisted mark-delete position of the slowest
// durable subscription, and false when there is none. Persisted, as
// Pulsar's cursor container learns a mark-delete position once it is
// persisted: what a cursor restores after a Crash is never deleted (acks
// that the rate limit holds back trim at the next flush). Topic goroutine.
func (t *Topic) slowestDurable() (ledger.Position, bool) {
	var slowest ledger.Position
	found := false
	for _, s := range t.Subs {
		if !s.durable {
			continue
		}
		if md := s.Cur.PersistedMarkDelete(); !found || md.Less(slowest) {
			slowest, found = md, true
		}
	}
	return slowest, found
}

// trimLedgers deletes the ledgers that retention no longer keeps. As
// Pulsar's advanceCursorsIfNecessary, subscriptions still before the end of
// what goes (non-durable ones: readers) are first moved past it. Topic
// goroutine.
func (t *Topic) trimLedgers() {
	if t.name.Domain != "persistent" {
		return
	}
	slowest, durable := t.slowestDurable()
	if durable {
		// What every durable subscription has acknowledged leaves memory
		// now (with a data dir), trimmed or not (ledger.DropConsumed).
		t.Led.DropConsumed(slowest)
	}
	if !t.Led.OldestConsumed(slowest, durable) {
		return // the common case, without reading the policies
	}
	gone := t.Led.Trimmable(slowest, durable, t.b.Retention(t.name), t.b.cfg.Clock.Now())
	if len(gone) == 0 {
		return
	}
	last := gone[len(gone)-1].Last()
	for _, s := range t.Subs {
		if s.Cur.MarkDelete().Less(last) {
			s.AckThrough(last)
		}
	}
	if err := t.Led.DeleteBefore(last.Ledger + 1); err != nil {
		t.b.log.Error("trim ledgers", "topic", t.name.Full, "err", err)
		return
	}
	for p := range t.infos {
		if p.Ledger <= last.Ledger {
			delete(t.infos, p)
		}
	}
	t.pruneAborted() // txn_topic.go
	t.b.log.Debug("trimmed ledgers", "topic", t.name.Full, "ledgers", len(gone), "through", last)
}

// afterAppend trims when the entry at p filled its ledger: Pulsar closes a
// full ledger and trims at once. Topic goroutine.
func (t *Topic) afterAppend(p ledger.Position) {
	// Full by entries, or closed by another rule (internal/ledger/rollover.go).
	if p.Entry == int64(t.b.cfg.LedgerRolloverEntries)-1 || t.Led.Closed() {
		t.trimLedgers()
	}
}

// policyTimers are a topic's periodic message expiry and retention checks.
// Owned by the topic goroutine.
type policyTimers struct {
	stopExpiry, stopRetention func() bool
}

// armPolicyChecks starts both checks. Topic goroutine.
func (t *Topic) armPolicyChecks() {
	t.armExpiryCheck()
	t.armRetentionCheck()
}

func (p *policyTimers) stop() {
	for _, f := range []func() bool{p.stopExpiry, p.stopRetention} {
		if f != nil {
			f()
		}
	}
}

// armRetentionCheck schedules the next periodic trim.
func (t *Topic) armRetentionCheck() {
	t.timers.stopRetention = t.b.cfg.Clock.AfterFunc(t.b.cfg.RetentionCheckInterval, func() {
		t.Do(func() {
			t.trimLedgers()
			t.armRetentionCheck()
		})
	})
}
