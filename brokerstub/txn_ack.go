package brokerstub

import (
	"fmt"
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// pendingAcks are a subscription's transactional acks not yet ended
// (Pulsar's PendingAckHandle): applied to the cursor when their transaction
// commits, dropped (and the messages redelivered) when it aborts. An ack of
// a message already acknowledged, or pending in another transaction, is a
// TransactionConflict; two transactions may hold disjoint batch indexes of
// one entry, as in Pulsar. Owned by the topic goroutine; the coordinator
// keeps a copy of each for recovery.
type pendingAcks struct {
	// ind holds the individual acks by position, one per transaction (more
	// than one only for disjoint batch indexes).
	ind map[ledger.Position][]pendingTxnAck
	cum *pendingTxnAck // the cumulative ack, at most one transaction's
}

// pendingTxnAck is one pending ack and its transaction.
type pendingTxnAck struct {
	txn txnID
	rec txnAckRec
}

func (r txnAckRec) pos() ledger.Position { return ledger.Position{Ledger: r.Ledger, Entry: r.Entry} }

// subAcks returns the pending acks of subscription sub, created on first use.
func (tb *txnBuffer) subAcks(sub string) *pendingAcks {
	pa := tb.acks[sub]
	if pa == nil {
		pa = &pendingAcks{ind: map[ledger.Position][]pendingTxnAck{}}
		tb.acks[sub] = pa
	}
	return pa
}

// add holds r pending for id; two acks of one batch by one transaction
// combine (an ack set's cleared bits are what it acknowledges).
func (pa *pendingAcks) add(id txnID, r txnAckRec) {
	if r.Cumulative {
		if pa.cum == nil || pa.cum.rec.pos().Less(r.pos()) {
			pa.cum = &pendingTxnAck{txn: id, rec: r}
		}
		return
	}
	list := pa.ind[r.pos()]
	for i, old := range list {
		if old.txn != id {
			continue
		}
		if old.rec.AckSet == nil || r.AckSet == nil {
			r.AckSet = nil
		} else {
			r.AckSet = txn.AndAckSets(old.rec.AckSet, r.AckSet)
		}
		list[i].rec = r
		return
	}
	pa.ind[r.pos()] = append(list, pendingTxnAck{txn: id, rec: r})
}

// drop forgets every pending ack of id.
func (pa *pendingAcks) drop(id txnID) {
	for p, list := range pa.ind {
		list = slices.DeleteFunc(list, func(a pendingTxnAck) bool { return a.txn == id })
		if len(list) == 0 {
			delete(pa.ind, p)
		} else {
			pa.ind[p] = list
		}
	}
	if pa.cum != nil && pa.cum.txn == id {
		pa.cum = nil
	}
}

// conflict reports whether id may not hold r pending on s.
func (pa *pendingAcks) conflict(id txnID, s *subscription, r txnAckRec) error {
	pos := r.pos()
	if r.Cumulative {
		if !s.cur.MarkDelete().Less(pos) {
			return fmt.Errorf("%w: %s is already acknowledged on %s", errTxnConflict, pos, s.name)
		}
		if pa.cum != nil && pa.cum.txn != id {
			return fmt.Errorf("%w: %s holds a cumulative ack on %s", errTxnConflict, pa.cum.txn, s.name)
		}
		for p, list := range pa.ind {
			for _, a := range list {
				if a.txn != id && !pos.Less(p) {
					return fmt.Errorf("%w: %s is pending in %s", errTxnConflict, p, a.txn)
				}
			}
		}
		return nil
	}
	if s.cur.IsAcked(pos) || txn.BitsAlreadyAcked(s.cur.AckSet(pos), r.AckSet, r.Batch) {
		return fmt.Errorf("%w: %s is already acknowledged on %s", errTxnConflict, pos, s.name)
	}
	for _, a := range pa.ind[pos] {
		if a.txn == id {
			continue
		}
		if a.rec.AckSet == nil || r.AckSet == nil || txn.BitsAlreadyAcked(a.rec.AckSet, r.AckSet, r.Batch) {
			return fmt.Errorf("%w: %s is pending in %s", errTxnConflict, pos, a.txn)
		}
	}
	if pa.cum != nil && pa.cum.txn != id && !pa.cum.rec.pos().Less(pos) {
		return fmt.Errorf("%w: %s is under the cumulative ack of %s", errTxnConflict, pos, pa.cum.txn)
	}
	return nil
}

// handleTxnAck holds a transactional ACK pending and answers it with the
// transaction id in ACK_RESPONSE, as Pulsar does.
func (c *conn) handleTxnAck(cs *consumer, m *proto.CommandAck, id txnID) {
	t := cs.sub.t
	ok := t.do(func() {
		if err := cs.sub.txnAck(id, m); err != nil {
			c.ackResponse(m, txnErrorCode(err), txnErrorText(err))
			return
		}
		c.ackResponse(m, 0, "")
	})
	if !ok {
		c.ackResponse(m, proto.ServerError_ServiceNotReady, "topic is being unloaded")
	}
}

// txnAck checks the acks of m against the pending ones and the cursor and
// holds them pending for id. Topic goroutine.
func (s *subscription) txnAck(id txnID, m *proto.CommandAck) error {
	t := s.t
	c := t.b.tc.Load()
	if c == nil || t.txn == nil {
		return errTxnDisabled
	}
	cumulative := m.GetAckType() == proto.CommandAck_Cumulative
	if cumulative && (s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared) {
		return fmt.Errorf("%w: cumulative ack on a %s subscription", errTxnNotAllowed, s.typ)
	}
	pa := t.txn.subAcks(s.name)
	recs := make([]txnAckRec, 0, len(m.GetMessageId()))
	for _, mid := range m.GetMessageId() {
		pos := posOf(mid)
		e, ok := t.led.Get(pos)
		if !ok {
			continue
		}
		r := txnAckRec{Topic: t.name.Full, Sub: s.name, Ledger: pos.Ledger, Entry: pos.Entry,
			Batch: int(t.info(e).numMessages), Cumulative: cumulative}
		if set := mid.GetAckSet(); len(set) > 0 && !t.b.opts.DisableBatchIndexAck {
			r.AckSet = slices.Clone(set)
		}
		if err := pa.conflict(id, s, r); err != nil {
			return err
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil
	}
	if err := c.recordAcks(id, recs); err != nil {
		return err
	}
	for _, r := range recs {
		pa.add(id, r)
	}
	return nil
}

// txnEndSub is the end of id on subscription sub (END_TXN_ON_SUBSCRIPTION):
// on commit its acks recs are applied to the cursor; on abort their
// messages are delivered again. Idempotent.
func (t *topic) txnEndSub(sub string, id txnID, commit bool, recs []txnAckRec) {
	if t.txn != nil {
		if pa := t.txn.acks[sub]; pa != nil {
			pa.drop(id)
		}
	}
	s := t.subs[sub]
	if s == nil {
		return
	}
	if !commit {
		s.txnRedeliverAborted(recs) // txn_filter.go
		s.dispatch()
		return
	}
	shared := s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared
	for _, r := range recs {
		if r.Cumulative && shared {
			continue // the subscription changed type since: Pulsar ignores those
		}
		l, e := uint64(r.Ledger), uint64(r.Entry)
		typ := proto.CommandAck_Individual
		if r.Cumulative {
			typ = proto.CommandAck_Cumulative
		}
		s.ack(nil, &proto.CommandAck{AckType: &typ,
			MessageId: []*proto.MessageIdData{{LedgerId: &l, EntryId: &e, AckSet: r.AckSet}}})
	}
	s.persist(false)
	s.dispatch()
}
