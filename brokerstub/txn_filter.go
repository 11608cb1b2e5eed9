package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"

	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// Dispatch and transactional acks (Pulsar's filterEntriesForConsumer with
// the subscription's PendingAckHandle): a message acknowledged in a
// transaction that has not ended is neither acknowledged nor deliverable.
// Every read of a subscription — the replay queue, the normal read, the
// Key_Shared dispatcher's — passes over an entry whose every message is
// acknowledged or pending in a transaction, and a batch partly pending goes
// out with the pending indexes marked acknowledged in its ack set. Only
// individual pending acks filter, as in Pulsar (its getPositionInPendingAck
// looks at them alone): messages under a pending cumulative ack stay
// deliverable. When the transaction aborts, the messages it held become
// deliverable again and are replayed (txnRedeliverAborted).

// txnPendingAt returns what transactions hold pending at p on s: ok is
// false for nothing; otherwise set is nil when the whole entry is pending,
// or the ack set of a batch with the pending indexes cleared (Pulsar's
// position in the pending-ack handle, the AND of every transaction's).
func (s *subscription) txnPendingAt(p ledger.Position) (set []int64, ok bool) {
	if s.t.txn == nil {
		return nil, false
	}
	pa := s.t.txn.acks[s.name]
	if pa == nil || len(pa.ind) == 0 {
		return nil, false
	}
	list := pa.ind[p]
	if len(list) == 0 {
		return nil, false
	}
	for _, a := range list {
		if a.rec.AckSet == nil {
			return nil, true
		}
		if set == nil {
			set = a.rec.AckSet
		} else {
			set = txn.AndAckSets(set, a.rec.AckSet)
		}
	}
	return set, true
}

// txnHeld reports whether dispatch passes over the unacknowledged entry at
// p: every message of it is acknowledged on the cursor or pending in a
// transaction.
func (s *subscription) txnHeld(p ledger.Position) bool {
	pending, ok := s.txnPendingAt(p)
	if !ok {
		return false
	}
	if pending == nil {
		return true // the whole entry
	}
	e, ok := s.t.led.Get(p)
	if !ok {
		return false
	}
	batch := int(s.t.info(e).numMessages)
	set := pending
	if cur := s.cur.AckSet(p); cur != nil {
		set = txn.AndAckSets(cur, pending)
	}
	return txn.Popcount(set, batch) == 0
}

// txnDeliverAckSet returns the ack set and message count of a batch about to
// be delivered at p, given the cursor's (ackSet, count): the indexes pending
// in a transaction are marked acknowledged, as Pulsar ANDs the two sets.
func (s *subscription) txnDeliverAckSet(p ledger.Position, batch int, ackSet []int64, count int64) ([]int64, int64) {
	pending, ok := s.txnPendingAt(p)
	if !ok || pending == nil {
		return ackSet, count
	}
	if ackSet == nil {
		ackSet = txn.FullAckSet(batch)
	}
	ackSet = txn.AndAckSets(ackSet, pending)
	return ackSet, int64(txn.Popcount(ackSet, batch))
}

// txnRedeliverAborted makes the messages that an aborted transaction held
// pending on s deliverable again, as Pulsar's abort redelivers them: an
// entry a consumer holds goes back to the replay queue; one that nobody
// holds any more (passed over while pending) is queued for replay too,
// unless the normal read has not reached it yet. A cumulative pending ack
// redelivers everything the consumers hold, as Pulsar's
// redeliverUnacknowledgedMessages of the consumer does.
func (s *subscription) txnRedeliverAborted(recs []txnAckRec) {
	cumulative := false
	for _, r := range recs {
		if r.Cumulative {
			cumulative = true
			continue
		}
		s.txnReplay(r.pos())
	}
	if cumulative {
		for _, cs := range s.consumers {
			s.requeue(cs, nil)
		}
	}
}

// txnReplay queues p for delivery again after the abort of the
// transaction that held it pending.
func (s *subscription) txnReplay(p ledger.Position) {
	for _, cs := range s.consumers {
		if _, ok := cs.pending[p]; ok {
			s.requeue(cs, []ledger.Position{p})
			return
		}
	}
	if s.cur.IsAcked(p) || s.readPos.Less(p) || s.replay.Contains(p) || s.txnHeld(p) {
		return // acknowledged, not read yet, queued already, or held by another transaction
	}
	e, ok := s.t.led.Get(p)
	if !ok {
		return
	}
	var hash int32
	if s.ks != nil {
		hash = s.ksEntry(s.t.info(e)).Hash
	}
	s.redeliveries[p]++
	s.replay.Add(p, hash)
}
