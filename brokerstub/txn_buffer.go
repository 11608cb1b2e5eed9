package brokerstub

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// txnBuffer is a persistent topic's transaction buffer (Pulsar's
// TopicTransactionBuffer). A transactional message is stored in the ledger
// at once, in publish order, with its transaction id in its metadata; at the
// end the buffer writes a commit or abort marker. Readers and consumers
// never read at or past the first entry of the oldest open transaction (the
// max-read position), so committed messages become visible in publish
// order; entries of aborted transactions and markers are skipped (and
// acknowledged) by dispatch. The state is rebuilt from the ledger when the
// topic loads, so it survives Restart and Crash with the entries. Owned by
// the topic goroutine.
type txnBuffer struct {
	open map[txnID]ledger.Position // first entry of each open transaction
	// aborted holds the aborted transactions with entries here, by the
	// position of their abort marker; one is forgotten once the ledger of
	// its marker is trimmed, and with it every entry of the transaction
	// (pruneAborted), as Pulsar's trimExpiredAbortedTxns.
	aborted map[txnID]ledger.Position
	acks    map[string]*pendingAcks // transactional acks by subscription (txn_ack.go)
}

// loadTxnBuffer rebuilds the buffer from the ledger and the pending acks
// from the coordinator, when transactions are enabled. A transaction left
// open in the ledger that the coordinator no longer knows is aborted.
func (t *topic) loadTxnBuffer() {
	c := t.b.tc.Load()
	if c == nil || t.np != nil {
		return
	}
	tb := &txnBuffer{open: map[txnID]ledger.Position{}, aborted: map[txnID]ledger.Position{}, acks: map[string]*pendingAcks{}}
	t.txn = tb
	ended := map[txnID]bool{}
	if first, ok := t.led.First(); ok {
		t.led.Scan(first, func(e ledger.Entry) bool {
			in := parseEntryInfo(e)
			if !in.inTxn {
				return true
			}
			switch in.marker {
			case markerTxnCommit, markerTxnAbort:
				delete(tb.open, in.txn)
				ended[in.txn] = true
				if in.marker == markerTxnAbort {
					tb.aborted[in.txn] = e.Pos
				}
			default:
				if _, ok := tb.open[in.txn]; !ok && !ended[in.txn] {
					tb.open[in.txn] = e.Pos
				}
			}
			return true
		})
	}
	for id := range tb.open {
		if err := c.checkOpen(id); errors.Is(err, errTxnNotFound) || errors.Is(err, errTCNotFound) {
			t.txnEnd(id, false)
		}
	}
	for id, recs := range c.pendingAcksOn(t.name.Full) {
		for _, r := range recs {
			tb.subAcks(r.Sub).add(id, r)
		}
	}
}

// txnTagged returns the metadata of a transactional SEND with the
// transaction id in it (protobuf fields 22 and 23 appended: a later field
// wins, so metadata that already has them is unchanged in meaning).
func txnTagged(rawMeta []byte, id txnID) []byte {
	out := make([]byte, 0, len(rawMeta)+22)
	out = append(out, rawMeta...)
	out = protowire.AppendTag(out, 22, protowire.VarintType)
	out = protowire.AppendVarint(out, id.Least)
	out = protowire.AppendTag(out, 23, protowire.VarintType)
	return protowire.AppendVarint(out, id.Most)
}

// txnAdmitSend checks a transactional SEND on the topic goroutine before it
// is stored: transactions must be on and id open; the topic joins the
// transaction's partitions (as ADD_PARTITION_TO_TXN does), so that the end
// always reaches it.
func (t *topic) txnAdmitSend(id txnID) error {
	c := t.b.tc.Load()
	if c == nil || t.txn == nil {
		return errTxnDisabled
	}
	return c.addPartitions(id, txnByBroker, []string{t.name.Full})
}

// txnStored records that a message of id was stored at pos.
func (t *topic) txnStored(id txnID, pos ledger.Position) {
	if _, ok := t.txn.open[id]; !ok {
		t.txn.open[id] = pos
	}
}

// txnEnd is the end of id on this topic (END_TXN_ON_PARTITION): a marker is
// written and the transaction's messages become visible (commit) or are
// never dispatched (abort). It is idempotent: a transaction with nothing
// open here has nothing to end.
func (t *topic) txnEnd(id txnID, commit bool) {
	if t.txn == nil {
		return
	}
	if _, ok := t.txn.open[id]; !ok {
		return
	}
	marker := markerTxnAbort
	if commit {
		marker = markerTxnCommit
	}
	now := uint64(max(t.b.opts.Clock.Now().UnixMilli(), 0))
	md := &proto.MessageMetadata{
		ProducerName: strp("brokerstub-txn-buffer"),
		SequenceId:   gproto.Uint64(0),
		PublishTime:  &now,
		MarkerType:   &marker,
	}
	raw, err := gproto.Marshal(md)
	var pos ledger.Position
	if err == nil {
		t.awaitDurable() // the marker follows the entries in flight (pipeline.go)
		pos, err = t.led.Append(ledger.Bytes{Meta: txnTagged(raw, id)}, now, 1)
	}
	if err != nil {
		// The coordinator retries the end (the client's retry, or the
		// recovery after a restart); until then the transaction stays open.
		t.b.log.Error("write transaction marker", "topic", t.name.Full, "txn", id, "err", err)
		return
	}
	delete(t.txn.open, id)
	if !commit {
		t.txn.aborted[id] = pos
	}
	t.afterAppend(pos) // a marker that fills its ledger trims as a message does (retention.go)
	t.dispatchAll()
}

// pruneAborted forgets the aborted transactions whose abort marker is no
// longer stored: retention trimmed its ledger, and every entry of the
// transaction (all before the marker) with it. Called after a trim, so
// that the set is bounded by what the topic stores. Topic goroutine.
func (t *topic) pruneAborted() {
	if t.txn == nil {
		return
	}
	for id, marker := range t.txn.aborted {
		if _, ok := t.led.Get(marker); !ok {
			delete(t.txn.aborted, id)
		}
	}
}

// txnReadLimit is the max-read position: entries at or after it are not
// readable (false when no transaction is open on the topic).
func (t *topic) txnReadLimit() (ledger.Position, bool) {
	if t.txn == nil || len(t.txn.open) == 0 {
		return ledger.Position{}, false
	}
	var lim ledger.Position
	first := true
	for _, p := range t.txn.open {
		if first || p.Less(lim) {
			lim, first = p, false
		}
	}
	return lim, true
}

// txnHidden reports whether an entry is never dispatched: a marker, or a
// message of an aborted transaction.
func (t *topic) txnHidden(in *entryInfo) bool {
	if in.marker != 0 {
		return true
	}
	if !in.inTxn || t.txn == nil {
		return false
	}
	_, aborted := t.txn.aborted[in.txn]
	return aborted
}

// lastDispatchable is the last entry a consumer may be given (Pulsar's
// getLastDispatchablePosition): before the max-read position, not a marker,
// not aborted.
func (t *topic) lastDispatchable() (ledger.Position, bool) {
	p, ok := t.led.Last()
	if t.txn == nil {
		return p, ok
	}
	lim, limited := t.txnReadLimit()
	for ok {
		if !limited || p.Less(lim) {
			if e, found := t.led.Get(p); found && !t.txnHidden(t.info(e)) {
				return p, true
			}
		}
		p, ok = t.led.Prev(p)
	}
	return ledger.Position{}, false
}

// txnSkip reports whether dispatch passes over the unacknowledged entry at
// p: a marker or an aborted message, which it acknowledges on the cursor.
func (s *subscription) txnSkip(p ledger.Position) bool {
	if s.t.txn == nil {
		return false
	}
	e, ok := s.t.led.Get(p)
	if !ok {
		return false
	}
	in := s.t.info(e)
	if !s.t.txnHidden(in) {
		return false
	}
	s.cur.AckIndividual(p, nil, int(in.numMessages))
	return true
}
