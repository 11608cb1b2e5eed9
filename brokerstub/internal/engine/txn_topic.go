package engine

import (
	"iter"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// A persistent topic's transaction buffer (txn.Buffer, t.txn) is called
// here on the topic's goroutine; t.txn is nil when transactions are off
// and on a non-persistent topic. The buffer reads the topic's entries
// through txnEntries and a subscription's cursor directly.

// txnEntries is the topic's ledger as its buffer reads it (txn.Entries).
// Topic goroutine.
type txnEntries struct{ t *Topic }

// Last is the ledger's last position.
func (es txnEntries) Last() (ledger.Position, bool) { return es.t.Led.Last() }

// Prev is the ledger's position before p.
func (es txnEntries) Prev(p ledger.Position) (ledger.Position, bool) { return es.t.Led.Prev(p) }

// Entry is what the entry at p says of transactions.
func (es txnEntries) Entry(p ledger.Position) (txn.Entry, bool) {
	e, ok := es.t.Led.Get(p)
	if !ok {
		return txn.Entry{}, false
	}
	return es.t.info(e).txnEntry(p), true
}

// txnEntry is what an entry's metadata says of transactions.
func (in *entryInfo) txnEntry(p ledger.Position) txn.Entry {
	return txn.Entry{Pos: p, InTxn: in.inTxn, Txn: in.txn, Marker: in.marker, Messages: int(in.numMessages)}
}

// loadTxnBuffer rebuilds the buffer from the ledger and the pending acks
// from the coordinator, when transactions are enabled. A transaction left
// open in the ledger that the coordinator no longer knows is aborted.
func (t *Topic) loadTxnBuffer() {
	c := t.b.tc.Load()
	if c == nil || t.np != nil {
		return
	}
	t.Txn = txn.Rebuild(t.txnScan())
	for _, id := range t.Txn.Orphans(c) {
		t.txnEnd(id, false)
	}
	t.Txn.LoadAcks(c, t.name.Full)
}

// txnScan yields every stored entry's transaction fields, in order.
func (t *Topic) txnScan() iter.Seq[txn.Entry] {
	return func(yield func(txn.Entry) bool) {
		first, ok := t.Led.First()
		if !ok {
			return
		}
		t.Led.Scan(first, func(e ledger.Entry) bool {
			return yield(parseEntryInfo(e).txnEntry(e.Pos))
		})
	}
}

// txnAdmitSend checks a transactional SEND on the topic goroutine before it
// is stored: transactions must be on and id open; the topic joins the
// transaction's partitions (as ADD_PARTITION_TO_TXN does), so that the end
// always reaches it.
func (t *Topic) txnAdmitSend(id txn.ID) error {
	c := t.b.tc.Load()
	if c == nil || t.Txn == nil {
		return txn.ErrDisabled
	}
	return c.AddPartitions(id, txn.ByBroker, []string{t.name.Full})
}

// txnStored records that a message of id was stored at pos.
func (t *Topic) txnStored(id txn.ID, pos ledger.Position) { t.Txn.Stored(id, pos) }

// txnEnd is the end of id on this topic (END_TXN_ON_PARTITION): a marker is
// written and the transaction's messages become visible (commit) or are
// never dispatched (abort). It is idempotent: a transaction with nothing
// open here has nothing to end.
func (t *Topic) txnEnd(id txn.ID, commit bool) {
	if !t.Txn.IsOpen(id) {
		return
	}
	now := uint64(max(t.b.cfg.Clock.Now().UnixMilli(), 0))
	meta, err := txn.Marker(id, commit, now)
	var pos ledger.Position
	if err == nil {
		t.awaitDurable() // the marker follows the entries in flight (pipeline.go)
		pos, err = t.Led.Append(ledger.Bytes{Meta: meta}, now, 1)
	}
	if err != nil {
		// The coordinator retries the end (the client's retry, or the
		// recovery after a restart); until then the transaction stays open.
		t.b.log.Error("write transaction marker", "topic", t.name.Full, "txn", id, "err", err)
		return
	}
	t.Txn.Ended(id, commit, pos)
	t.afterAppend(pos) // a marker that fills its ledger trims as a message does (retention.go)
	t.dispatchAll()
}

// pruneAborted forgets the aborted transactions whose abort marker is no
// longer stored (txn.Buffer.PruneAborted). Called after a trim.
func (t *Topic) pruneAborted() {
	t.Txn.PruneAborted(func(p ledger.Position) bool {
		_, ok := t.Led.Get(p)
		return ok
	})
}

// txnReadLimit is the max-read position: entries at or after it are not
// readable (false when no transaction is open on the topic).
func (t *Topic) txnReadLimit() (ledger.Position, bool) { return t.Txn.ReadLimit() }

// txnHidden reports whether an entry is never dispatched: a marker, or a
// message of an aborted transaction.
func (t *Topic) txnHidden(in *entryInfo) bool { return t.Txn.Hidden(in.txnEntry(ledger.Position{})) }

// lastDispatchable is the last entry a consumer may be given (Pulsar's
// getLastDispatchablePosition): before the max-read position, not a marker,
// not aborted.
func (t *Topic) lastDispatchable() (ledger.Position, bool) {
	return t.Txn.LastDispatchable(txnEntries{t})
}

// txnSkip reports whether dispatch passes over the unacknowledged entry at
// p: a marker or an aborted message, which it acknowledges on the cursor.
func (s *Subscription) txnSkip(p ledger.Position) bool {
	return s.t.Txn.Skip(txnEntries{s.t}, s.Cur, p)
}

// txnHeld reports whether dispatch passes over the unacknowledged entry at
// p: every message of it is acknowledged on the cursor or pending in a
// transaction.
func (s *Subscription) txnHeld(p ledger.Position) bool {
	return s.t.Txn.Held(txnEntries{s.t}, s.Cur, s.name, p)
}

// txnDeliverAckSet returns the ack set and message count of a batch about
// to be delivered at p, given the cursor's (ackSet, count), with the
// indexes pending in a transaction marked acknowledged.
func (s *Subscription) txnDeliverAckSet(p ledger.Position, batch int, ackSet []int64, count int64) ([]int64, int64) {
	return s.t.Txn.DeliverAckSet(s.name, p, batch, ackSet, count)
}
