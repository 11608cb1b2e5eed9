package engine

import (
	"fmt"
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Transactional acks: an ACK with a transaction id is held pending in the
// topic's buffer (txn.PendingAcks) until the transaction ends; then the
// subscription applies the acks (commit) or delivers their messages again
// (abort).

// txnAck reads the acks of m and holds them pending for id in the topic's
// buffer. Topic goroutine.
func (s *Subscription) txnAck(id txn.ID, m *proto.CommandAck) error {
	t := s.t
	c := t.b.tc.Load()
	if c == nil || t.Txn == nil {
		return txn.ErrDisabled
	}
	cumulative := m.GetAckType() == proto.CommandAck_Cumulative
	if cumulative && s.shared() {
		return fmt.Errorf("%w: cumulative ack on a %s subscription", txn.ErrNotAllowed, s.typ)
	}
	acks := make([]txn.Ack, 0, len(m.GetMessageId()))
	for _, mid := range m.GetMessageId() {
		pos := posOf(mid)
		e, ok := t.Led.Get(pos)
		if !ok {
			continue
		}
		r := txn.Ack{Topic: t.name.Full, Sub: s.name, Ledger: pos.Ledger, Entry: pos.Entry,
			Batch: int(t.info(e).numMessages), Cumulative: cumulative}
		if set := mid.GetAckSet(); len(set) > 0 && !t.b.cfg.DisableBatchIndexAck {
			r.AckSet = slices.Clone(set)
		}
		acks = append(acks, r)
	}
	return t.Txn.Ack(c, id, s.name, s.Cur, acks)
}

// shared reports whether the subscription is Shared or Key_Shared, where
// Pulsar allows no cumulative ack in a transaction.
func (s *Subscription) shared() bool {
	return s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared
}

// txnEndSub is the end of id on subscription sub (END_TXN_ON_SUBSCRIPTION):
// on commit its acks are applied to the cursor; on abort their messages
// are delivered again. Idempotent.
func (t *Topic) txnEndSub(sub string, id txn.ID, commit bool, acks []txn.Ack) {
	t.Txn.EndSub(sub, id)
	s := t.Subs[sub]
	if s == nil {
		return
	}
	if !commit {
		s.txnRedeliverAborted(acks)
		s.Dispatch()
		return
	}
	for _, r := range txn.ToApply(acks, s.shared()) {
		l, e := uint64(r.Ledger), uint64(r.Entry)
		typ := proto.CommandAck_Individual
		if r.Cumulative {
			typ = proto.CommandAck_Cumulative
		}
		s.Ack(nil, &proto.CommandAck{AckType: &typ,
			MessageId: []*proto.MessageIdData{{LedgerId: &l, EntryId: &e, AckSet: r.AckSet}}})
	}
	s.persist(false)
	s.Dispatch()
}

// txnRedeliverAborted makes the messages that an aborted transaction held
// pending on s deliverable again, as Pulsar's abort redelivers them: an
// entry a consumer holds goes back to the replay queue; one that nobody
// holds any more (passed over while pending) is queued for replay too,
// unless the normal read has not reached it yet. A cumulative pending ack
// redelivers everything the consumers hold.
func (s *Subscription) txnRedeliverAborted(acks []txn.Ack) {
	positions, all := txn.Redeliveries(acks)
	for _, p := range positions {
		s.txnReplay(p)
	}
	if all {
		for _, cs := range s.Consumers {
			s.requeue(cs, nil)
		}
	}
}

// txnReplay queues p for delivery again after the abort of the
// transaction that held it pending.
func (s *Subscription) txnReplay(p ledger.Position) {
	for _, cs := range s.Consumers {
		if _, ok := cs.pending[p]; ok {
			s.requeue(cs, []ledger.Position{p})
			return
		}
	}
	if s.Cur.IsAcked(p) || s.readPos.Less(p) || s.replay.Contains(p) || s.txnHeld(p) {
		return // acknowledged, not read yet, queued already, or held by another transaction
	}
	e, ok := s.t.Led.Get(p)
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
