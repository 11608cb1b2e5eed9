package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// dispatchAll pushes what it can on every subscription of the topic.
func (t *Topic) dispatchAll() {
	for _, s := range t.Subs {
		s.Dispatch()
	}
}

// Dispatch delivers entries to consumers while some consumer can take one:
// entries waiting for redelivery first, in position order, then entries not
// read yet. Key_Shared subscriptions dispatch by hash (keyshared.go); the
// other types stop at the first entry that no consumer can take now, so
// that per-consumer order is kept.
func (s *Subscription) Dispatch() {
	if len(s.Consumers) == 0 || s.t.np != nil {
		return // a non-persistent topic pushes as it publishes (nonpersistent.go)
	}
	s.releaseDue()
	if s.isSingleActive() && s.rewindPending() {
		return // the new active consumer's turn comes after the delay (failover.go)
	}
	if s.Blocked || s.brokerBlocked {
		return // at its max unacked messages until acks come (unacked.go, unacked_broker.go)
	}
	s.run = rrRun{} // each pass starts a new run on the next consumer (rr_batch.go)
	if s.rateHeld() {
		return // at its dispatch rate until the timer (ratelimit_dispatch.go)
	}
	if s.ks != nil {
		s.ks.Dispatch(ksSource{s})
		s.rateHeld() // arms the timer if the rate stopped it
		return
	}
	if s.readsCompacted() {
		s.dispatchCompacted() // compaction_dispatch.go
		return
	}
	for {
		pos, replayed, ok := s.nextCandidate()
		if !ok {
			s.endOfTopic()
			return
		}
		e, ok := s.t.Led.Get(pos)
		if !ok {
			s.replay.Remove(pos)
			continue
		}
		in := s.t.info(e)
		if !replayed && s.holdDelayed(pos, in) {
			s.readPos = pos // held for later (delayed.go)
			continue
		}
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
		if s.rl.held && s.rateHeld() {
			return
		}
	}
}

// nextCandidate returns the next position to dispatch: the first replay
// position that is still unacknowledged, else the first unacknowledged entry
// after readPos. Entries pending in a transaction are passed over.
func (s *Subscription) nextCandidate() (ledger.Position, bool, bool) {
	for {
		p, ok := s.replay.First()
		if !ok {
			break
		}
		if !s.Cur.IsAcked(p) && !s.txnHeld(p) {
			return p, true, true
		}
		s.replay.Remove(p) // acknowledged, or pending in a transaction (txn_topic.go)
	}
	p, ok := s.nextUnread()
	return p, false, ok
}

// nextUnread returns the first unacknowledged entry after readPos, moving
// readPos past the acknowledged entries before it. With transactions it
// stops at the max-read position and acknowledges the markers and aborted
// messages it passes, as Pulsar's dispatcher does (txn_topic.go).
func (s *Subscription) nextUnread() (ledger.Position, bool) {
	p := s.readPos
	limit, limited := s.t.txnReadLimit()
	for {
		next, ok := s.t.Led.Next(p)
		if !ok || (limited && !next.Less(limit)) {
			return ledger.Position{}, false
		}
		if !s.Cur.IsAcked(next) {
			if !s.txnSkip(next) && !s.txnHeld(next) {
				return next, true
			}
		}
		s.readPos = next
		p = next
	}
}

// pick chooses the consumer for an entry of an Exclusive, Failover or
// Shared subscription, or nil when the consumer it must go to has no
// permits.
func (s *Subscription) pick(in *entryInfo) *Consumer {
	switch s.typ {
	case proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Failover:
		if s.active != nil && s.active.Permits > 0 {
			return s.active
		}
		return nil
	}
	// Shared: every chunk of a chunked message goes where its first chunk
	// went, as Pulsar's SharedConsumerAssignor does.
	if in.uuid != "" && in.chunkID > 0 {
		if owner, ok := s.chunkOwner[in.uuid]; ok {
			if owner.availablePermits() > 0 {
				return owner
			}
			return nil
		}
	}
	cs := s.continueRun() // rr_batch.go
	for i := 0; cs == nil && i < len(s.Consumers); i++ {
		if c := s.Consumers[(s.next+i)%len(s.Consumers)]; c.availablePermits() > 0 {
			s.next = (s.next + i + 1) % len(s.Consumers)
			cs = c
		}
	}
	if cs == nil {
		return nil
	}
	s.run.took(cs, in, s.t.b.cfg.Gates.DispatcherMaxRoundRobinBatchSize)
	if in.uuid != "" {
		if in.chunkID == in.numChunks-1 {
			delete(s.chunkOwner, in.uuid)
		} else {
			s.chunkOwner[in.uuid] = cs
		}
	}
	return cs
}

// deliver sends the entry to cs, with the ack set of its batch when part of
// it is acknowledged, charges cs's permits for the messages it holds and
// records it as pending at cs with its sticky key hash (0 unless Key_Shared).
func (s *Subscription) deliver(cs *Consumer, e ledger.Entry, in *entryInfo, hash int32) {
	if in.uuid != "" && in.chunkID == in.numChunks-1 {
		delete(s.chunkOwner, in.uuid)
	}
	var ackSet []int64
	count := int64(in.numMessages)
	if !s.t.b.cfg.DisableBatchIndexAck && in.numMessages > 1 {
		ackSet = s.Cur.AckSet(e.Pos)
		count = int64(s.Cur.UnackedInEntry(e.Pos, int(in.numMessages)))
		ackSet, count = s.txnDeliverAckSet(e.Pos, int(in.numMessages), ackSet, count)
	}
	cs.Permits -= count
	s.countOut(cs, count, len(e.Payload))
	s.chargeDispatch(count, len(e.Meta)+len(e.Payload)) // ratelimit_dispatch.go
	if _, held := cs.pending[e.Pos]; !held {
		s.noteDelivered(cs, int64(max(in.numMessages, 1))) // unacked.go
	}
	cs.pending[e.Pos] = PendingEntry{batch: in.numMessages, hash: hash}

	s.writeEntry(cs, e.Pos, ackSet, e)
}

// writeEntry sends cs a MESSAGE for entry e (its Meta, Payload and Sum)
// as the message at pos, with its redelivery count and the consumer's
// epoch, built in the subscription's reused command: the frame header is
// all it allocates.
func (s *Subscription) writeEntry(cs *Consumer, pos ledger.Position, ackSet []int64, e ledger.Entry) {
	cmd := s.scratch.fill(cs.id, uint64(pos.Ledger), uint64(pos.Entry), int32(s.t.name.Partition),
		ackSet, s.redeliveryCount(pos), cs.epoch)
	cs.peer.Deliver(cmd, e)
}
