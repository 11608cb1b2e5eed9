package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// The admin API's operations on a topic's state: lookups, peeking and
// examining messages, and the counts /metrics shows. Unless said
// otherwise, each runs on the topic goroutine (Topic.Call).

// TopicName is the topic's name. Any goroutine: it never changes.
func (t *Topic) TopicName() TopicName { return t.name }

// IsNonPersistent reports whether the topic is non-persistent. Any
// goroutine: it is set when the topic opens.
func (t *Topic) IsNonPersistent() bool { return t.np != nil }

// Subscription returns the subscription called name, nil when there is
// none.
func (t *Topic) Subscription(name string) *Subscription { return t.Subs[name] }

// SubscriptionNames returns the names of its subscriptions, in no order.
func (t *Topic) SubscriptionNames() []string {
	out := make([]string, 0, len(t.Subs))
	for n := range t.Subs {
		out = append(out, n)
	}
	return out
}

// DurableSubscriptionNames returns the names of its durable
// subscriptions, in no order.
func (t *Topic) DurableSubscriptionNames() []string {
	var out []string
	for n, s := range t.Subs {
		if s.durable {
			out = append(out, n)
		}
	}
	return out
}

// AddMissingSubscriptions creates each of subs that does not exist as a
// durable subscription at the earliest message.
func (t *Topic) AddMissingSubscriptions(subs []string) {
	for _, sub := range subs {
		if t.Subs[sub] == nil {
			t.addDurableSubscription(sub, beforeFirst)
		}
	}
}

// ExpireAllSubscriptions expires, on every subscription, the messages
// older than secs seconds (ttl.go).
func (t *Topic) ExpireAllSubscriptions(secs int64) {
	for _, s := range t.Subs {
		s.ExpireMessages(secs)
	}
}

// EntryAt returns the entry at p, ok false when the ledger has none there.
func (t *Topic) EntryAt(p ledger.Position) (ledger.Entry, bool) { return t.Led.Get(p) }

// PeekMessage returns the nth (from 1) entry of the backlog of the
// subscription sub, ok false when the backlog is shorter. A subscription
// that does not exist is created at the earliest message first, as Pulsar
// does (since 2.6.2, apache/pulsar#8182).
func (t *Topic) PeekMessage(sub string, n int64) (e ledger.Entry, ok bool) {
	s := t.Subs[sub]
	if s == nil {
		s = t.addDurableSubscription(sub, beforeFirst)
	}
	p := s.Cur.MarkDelete()
	for i := int64(0); i < n; i++ {
		if p, ok = s.Cur.NextUnacked(p); !ok {
			return e, false
		}
	}
	return t.Led.Get(p)
}

// ExamineMessage returns the nth (from 1) entry from the start of the
// ledger, or from its end when latest; ok false when there are fewer.
func (t *Topic) ExamineMessage(n int64, latest bool) (e ledger.Entry, ok bool) {
	var p ledger.Position
	if latest {
		p, ok = t.Led.Last()
	} else {
		p, ok = t.Led.First()
	}
	for i := int64(1); ok && i < n; i++ {
		if latest {
			p, ok = t.Led.Prev(p)
		} else {
			p, ok = t.Led.Next(p)
		}
	}
	if ok {
		e, ok = t.Led.Get(p)
	}
	return e, ok
}

// MessageIDByTime returns the id of the first message published at or
// after ts (Unix ms), ok false when there is none.
func (t *Topic) MessageIDByTime(ts int64) (id MessageIDJSON, ok bool) {
	pos := t.Led.FindByPublishTime(uint64(max(ts, 0)))
	if _, ok := t.Led.Get(pos); !ok {
		return id, false
	}
	return MessageIDJSON{LedgerID: pos.Ledger, EntryID: pos.Entry, PartitionIndex: t.name.Partition}, true
}

// TopicCounts are a topic's figures as /metrics and the console's
// overview show them.
type TopicCounts struct {
	Producers, Subscriptions, Consumers int
	MsgIn, BytesIn, MsgOut, BytesOut    int64
	StorageSize, Backlog                int64
	Entries                             int
}

// Counts returns the topic's figures.
func (t *Topic) Counts() TopicCounts {
	c := TopicCounts{Producers: len(t.producers), Subscriptions: len(t.Subs),
		MsgIn: t.adm.in.msgs, BytesIn: t.adm.in.bytes, MsgOut: t.adm.out.msgs, BytesOut: t.adm.out.bytes,
		StorageSize: t.storageSize(), Entries: t.Led.Len()}
	for _, s := range t.Subs {
		c.Consumers += len(s.Consumers)
		n, _ := s.backlogOf()
		c.Backlog += n
	}
	return c
}

// CreateSubscriptionAt creates the durable subscription sub whose first
// message is the one at the id d (latest when d names none), as the admin
// API does; exists is true, and nothing changes, when sub is there
// already. Beyond the subscription limits it is refused
// (RefuseSubscriptionREST).
func (t *Topic) CreateSubscriptionAt(sub string, d ResetCursorData) (exists bool, err error) {
	if t.Subs[sub] != nil {
		return true, nil
	}
	if err := t.refuseSubscriptionREST(); err != nil { // limits_admin.go
		return false, err
	}
	t.addDurableSubscription(sub, t.idPosition(d))
	return false, nil
}

// TerminateTopic terminates the topic (no more messages are accepted) and
// returns the id of its last message.
func (t *Topic) TerminateTopic() MessageIDJSON {
	id := t.LastMessageJSON()
	t.terminate()
	return id
}
