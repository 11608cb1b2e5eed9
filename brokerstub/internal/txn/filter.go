package txn

import "github.com/pulsargo/sdk/brokerstub/internal/ledger"

// Dispatch and transactional acks (Pulsar's filterEntriesForConsumer with
// the subscription's PendingAckHandle): a message acknowledged in a
// transaction that has not ended is neither acknowledged nor deliverable.
// Every read of a subscription — the replay queue, the normal read, the
// Key_Shared dispatcher's — passes over an entry whose every message is
// acknowledged or pending in a transaction (Held), and a batch partly
// pending goes out with the pending indexes marked acknowledged in its ack
// set (DeliverAckSet). Only individual pending acks filter, as in Pulsar
// (its getPositionInPendingAck looks at them alone): messages under a
// pending cumulative ack stay deliverable. When the transaction aborts, the
// messages it held become deliverable again (Redeliveries).

// pendingAt returns what transactions hold pending at p on sub: ok is
// false for nothing; otherwise set is nil when the whole entry is pending,
// or the ack set of a batch with the pending indexes cleared (Pulsar's
// position in the pending-ack handle, the AND of every transaction's).
func (b *Buffer) pendingAt(sub string, p ledger.Position) (set []int64, ok bool) {
	pa := b.Acks(sub)
	if pa == nil || len(pa.ind) == 0 {
		return nil, false
	}
	list := pa.ind[p]
	if len(list) == 0 {
		return nil, false
	}
	for _, a := range list {
		if a.Ack.AckSet == nil {
			return nil, true
		}
		if set == nil {
			set = a.Ack.AckSet
		} else {
			set = AndAckSets(set, a.Ack.AckSet)
		}
	}
	return set, true
}

// Held reports whether dispatch passes over the unacknowledged entry at p
// on subscription sub (cursor cur): every message of it is acknowledged on
// the cursor or pending in a transaction.
func (b *Buffer) Held(es Entries, cur Cursor, sub string, p ledger.Position) bool {
	pending, ok := b.pendingAt(sub, p)
	if !ok {
		return false
	}
	if pending == nil {
		return true // the whole entry
	}
	e, ok := es.Entry(p)
	if !ok {
		return false
	}
	set := pending
	if c := cur.AckSet(p); c != nil {
		set = AndAckSets(c, pending)
	}
	return Popcount(set, e.Messages) == 0
}

// DeliverAckSet returns the ack set and message count of a batch of batch
// messages about to be delivered at p on sub, given the cursor's (ackSet,
// count): the indexes pending in a transaction are marked acknowledged,
// as Pulsar ANDs the two sets.
func (b *Buffer) DeliverAckSet(sub string, p ledger.Position, batch int, ackSet []int64, count int64) ([]int64, int64) {
	pending, ok := b.pendingAt(sub, p)
	if !ok || pending == nil {
		return ackSet, count
	}
	if ackSet == nil {
		ackSet = FullAckSet(batch)
	}
	ackSet = AndAckSets(ackSet, pending)
	return ackSet, int64(Popcount(ackSet, batch))
}
