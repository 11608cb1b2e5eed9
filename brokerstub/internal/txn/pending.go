package txn

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Ack is one transactional ack held pending until the end: the position
// (with the ack set of a batch-index ack) on a subscription. The
// coordinator persists it, so that a restart finds it pending again.
type Ack struct {
	Topic      string  `json:"topic"`
	Sub        string  `json:"sub"`
	Ledger     int64   `json:"ledger"`
	Entry      int64   `json:"entry"`
	AckSet     []int64 `json:"ackSet,omitempty"` // nil: the whole entry
	Batch      int     `json:"batch"`            // messages in the entry
	Cumulative bool    `json:"cumulative,omitempty"`
}

// Pos is the ack's position.
func (r Ack) Pos() ledger.Position { return ledger.Position{Ledger: r.Ledger, Entry: r.Entry} }

// PendingAcks are a subscription's transactional acks not yet ended
// (Pulsar's PendingAckHandle): applied to the cursor when their
// transaction commits, dropped (and the messages redelivered) when it
// aborts. An ack of a message already acknowledged, or pending in another
// transaction, is ErrConflict; two transactions may hold disjoint batch
// indexes of one entry, as in Pulsar. Owned by the topic goroutine; the
// coordinator keeps a copy of each for recovery. A nil *PendingAcks holds
// nothing.
type PendingAcks struct {
	// ind holds the individual acks by position, one per transaction (more
	// than one only for disjoint batch indexes).
	ind map[ledger.Position][]Held
	cum *Held // the cumulative ack, at most one transaction's
}

// Held is one pending ack and its transaction.
type Held struct {
	Txn ID
	Ack Ack
}

// Acks returns the pending acks of subscription sub, nil when it has none.
func (b *Buffer) Acks(sub string) *PendingAcks {
	if b == nil {
		return nil
	}
	return b.acks[sub]
}

// subAcks returns the pending acks of subscription sub, created on first use.
func (b *Buffer) subAcks(sub string) *PendingAcks {
	pa := b.acks[sub]
	if pa == nil {
		pa = &PendingAcks{ind: map[ledger.Position][]Held{}}
		b.acks[sub] = pa
	}
	return pa
}

// Len is how many positions hold individual pending acks, plus one for a
// pending cumulative ack.
func (pa *PendingAcks) Len() int {
	if pa == nil {
		return 0
	}
	n := len(pa.ind)
	if pa.cum != nil {
		n++
	}
	return n
}

// At returns the individual acks pending at p.
func (pa *PendingAcks) At(p ledger.Position) []Held {
	if pa == nil {
		return nil
	}
	return pa.ind[p]
}

// Cumulative returns the pending cumulative ack, if any.
func (pa *PendingAcks) Cumulative() (Held, bool) {
	if pa == nil || pa.cum == nil {
		return Held{}, false
	}
	return *pa.cum, true
}

// add holds r pending for id; two acks of one batch by one transaction
// combine (an ack set's cleared bits are what it acknowledges).
func (pa *PendingAcks) add(id ID, r Ack) {
	if r.Cumulative {
		if pa.cum == nil || pa.cum.Ack.Pos().Less(r.Pos()) {
			pa.cum = &Held{Txn: id, Ack: r}
		}
		return
	}
	list := pa.ind[r.Pos()]
	for i, old := range list {
		if old.Txn != id {
			continue
		}
		if old.Ack.AckSet == nil || r.AckSet == nil {
			r.AckSet = nil
		} else {
			r.AckSet = AndAckSets(old.Ack.AckSet, r.AckSet)
		}
		list[i].Ack = r
		return
	}
	pa.ind[r.Pos()] = append(list, Held{Txn: id, Ack: r})
}

// drop forgets every pending ack of id.
func (pa *PendingAcks) drop(id ID) {
	for p, list := range pa.ind {
		list = slices.DeleteFunc(list, func(a Held) bool { return a.Txn == id })
		if len(list) == 0 {
			delete(pa.ind, p)
		} else {
			pa.ind[p] = list
		}
	}
	if pa.cum != nil && pa.cum.Txn == id {
		pa.cum = nil
	}
}

// conflict reports whether id may not hold r pending on subscription sub,
// whose cursor is cur.
func (pa *PendingAcks) conflict(id ID, sub string, cur Cursor, r Ack) error {
	pos := r.Pos()
	if r.Cumulative {
		if !cur.MarkDelete().Less(pos) {
			return fmt.Errorf("%w: %s is already acknowledged on %s", ErrConflict, pos, sub)
		}
		if pa.cum != nil && pa.cum.Txn != id {
			return fmt.Errorf("%w: %s holds a cumulative ack on %s", ErrConflict, pa.cum.Txn, sub)
		}
		for p, list := range pa.ind {
			for _, a := range list {
				if a.Txn != id && !pos.Less(p) {
					return fmt.Errorf("%w: %s is pending in %s", ErrConflict, p, a.Txn)
				}
			}
		}
		return nil
	}
	if cur.IsAcked(pos) || BitsAlreadyAcked(cur.AckSet(pos), r.AckSet, r.Batch) {
		return fmt.Errorf("%w: %s is already acknowledged on %s", ErrConflict, pos, sub)
	}
	for _, a := range pa.ind[pos] {
		if a.Txn == id {
			continue
		}
		if a.Ack.AckSet == nil || r.AckSet == nil || BitsAlreadyAcked(a.Ack.AckSet, r.AckSet, r.Batch) {
			return fmt.Errorf("%w: %s is pending in %s", ErrConflict, pos, a.Txn)
		}
	}
	if pa.cum != nil && pa.cum.Txn != id && !pa.cum.Ack.Pos().Less(pos) {
		return fmt.Errorf("%w: %s is under the cumulative ack of %s", ErrConflict, pos, pa.cum.Txn)
	}
	return nil
}

// Ack checks acks (of one ACK command, on subscription sub with cursor
// cur) against the pending ones and the cursor, has c record them, and
// holds them pending for id. A conflict refuses the whole command.
func (b *Buffer) Ack(c *Coordinator, id ID, sub string, cur Cursor, acks []Ack) error {
	if b == nil || c == nil {
		return ErrDisabled
	}
	pa := b.subAcks(sub)
	for _, r := range acks {
		if err := pa.conflict(id, sub, cur, r); err != nil {
			return err
		}
	}
	if len(acks) == 0 {
		return nil
	}
	if err := c.recordAcks(id, acks); err != nil {
		return err
	}
	for _, r := range acks {
		pa.add(id, r)
	}
	return nil
}

// EndSub forgets what id held pending on subscription sub
// (END_TXN_ON_SUBSCRIPTION); the topic then applies or redelivers the
// acks (ToApply, Redeliveries).
func (b *Buffer) EndSub(sub string, id ID) {
	if pa := b.Acks(sub); pa != nil {
		pa.drop(id)
	}
}

// ToApply are the acks of a committed transaction to apply on a
// subscription: all, but for a cumulative ack on a subscription that is
// Shared or Key_Shared now (it changed type since), which Pulsar ignores.
func ToApply(acks []Ack, shared bool) []Ack {
	if !shared {
		return acks
	}
	return slices.DeleteFunc(slices.Clone(acks), func(r Ack) bool { return r.Cumulative })
}

// Redeliveries are what an aborted transaction's acks on a subscription
// make deliverable again: the positions it acknowledged individually, and
// all (true) when it acknowledged cumulatively, as Pulsar's
// redeliverUnacknowledgedMessages of the consumer then redelivers
// everything the consumers hold.
func Redeliveries(acks []Ack) (positions []ledger.Position, all bool) {
	for _, r := range acks {
		if r.Cumulative {
			all = true
			continue
		}
		positions = append(positions, r.Pos())
	}
	return positions, all
}

// errorIsGone reports whether err says a transaction is not known.
func errorIsGone(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrTCNotFound)
}
