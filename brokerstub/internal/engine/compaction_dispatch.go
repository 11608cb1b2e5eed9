package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/compaction"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// Reading the compacted view (Pulsar's CompactedTopicImpl.asyncReadEntriesOrWait):
// while a readCompacted subscription's read position is before the
// horizon, its next entry is the first entry of the view after it; past
// the last one, the read position jumps to the horizon and reading goes on
// in the topic. Entries the view left out are never delivered, and stay
// unacknowledged on the cursor until a cumulative ack passes them, as in
// Pulsar. A redelivered position before the horizon is read from the view
// again (and dropped if the view no longer has it).

// refuseReadCompacted refuses readCompacted on a Shared or Key_Shared
// subscription, as Pulsar's PersistentTopic.subscribe.
func refuseReadCompacted(m *proto.CommandSubscribe) (proto.ServerError, string) {
	if !m.GetReadCompacted() {
		return 0, ""
	}
	switch m.GetSubType() {
	case proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Failover:
		return 0, ""
	}
	return proto.ServerError_NotAllowedError, "readCompacted only allowed on failover or exclusive subscriptions"
}

// readsCompacted reports whether s dispatches from the compacted view: the
// topic has one and the active consumer asked for it.
func (s *Subscription) readsCompacted() bool {
	return s.t.compact.view != nil && s.isSingleActive() && s.active != nil && s.active.readCompacted
}

// dispatchCompacted is dispatch for a readCompacted subscription.
func (s *Subscription) dispatchCompacted() {
	v := s.t.compact.view
	for {
		pos, replayed, ok := s.nextCompacted(v)
		if !ok {
			s.endOfTopic()
			return
		}
		e, ok := s.compactedEntry(v, pos)
		if !ok {
			if replayed {
				s.replay.Remove(pos)
			} else {
				s.readPos = pos
			}
			continue
		}
		in := s.t.info(e)
		cs := s.pick(in)
		if cs == nil {
			return
		}
		if replayed {
			s.replay.Remove(pos)
		} else {
			s.readPos = pos
		}
		s.deliver(cs, e, in, 0)
	}
}

// nextCompacted is nextCandidate over the view: replays first, then the
// view's next unacknowledged entry after readPos up to the horizon, then
// the topic after the horizon.
func (s *Subscription) nextCompacted(v *compaction.View) (ledger.Position, bool, bool) {
	for {
		p, ok := s.replay.First()
		if !ok {
			break
		}
		if !s.Cur.IsAcked(p) && !s.txnHeld(p) {
			return p, true, true
		}
		s.replay.Remove(p)
	}
	for s.readPos.Less(v.Horizon) {
		e, ok := v.Next(s.readPos)
		if !ok || v.Horizon.Less(e.Pos) {
			s.readPos = v.Horizon
			break
		}
		if !s.Cur.IsAcked(e.Pos) {
			return e.Pos, false, true
		}
		s.readPos = e.Pos
	}
	p, ok := s.nextUnread()
	return p, false, ok
}

// compactedEntry is the entry at p as a readCompacted subscription reads
// it: from the view up to the horizon, from the topic after it.
func (s *Subscription) compactedEntry(v *compaction.View, p ledger.Position) (ledger.Entry, bool) {
	if !v.Horizon.Less(p) {
		return v.Get(p)
	}
	return s.t.Led.Get(p)
}

// lastMessageIDFor is the last message id GetLastMessageId gives cs: for a
// readCompacted consumer of a topic compacted up to its last entry, the
// last message of the view (-1:-1 when it is empty), as Pulsar does, so
// that a reader's hasNext does not wait for a message compacted out.
func (t *Topic) lastMessageIDFor(cs *Consumer) *proto.MessageIdData {
	v := t.compact.view
	if !cs.readCompacted || v == nil {
		return t.lastMessageID()
	}
	if last, ok := t.lastDispatchable(); ok && v.Horizon.Less(last) {
		return t.lastMessageID()
	}
	part, batch := int32(t.name.Partition), int32(-1)
	l, e := int64(-1), int64(-1)
	if le, ok := v.Last(); ok {
		l, e = le.Pos.Ledger, le.Pos.Entry
		batch = compaction.LastIndex(le, compaction.Options{MaxUncompressedSize: t.b.cfg.MaxMessageSize})
	}
	ul, ue := uint64(l), uint64(e)
	return &proto.MessageIdData{LedgerId: &ul, EntryId: &ue, Partition: &part, BatchIndex: &batch}
}
