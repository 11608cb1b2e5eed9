package txn

import (
	"iter"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Buffer is a persistent topic's transaction buffer (Pulsar's
// TopicTransactionBuffer). A transactional message is stored in the ledger
// at once, in publish order, with its transaction id in its metadata; at
// the end the topic writes a commit or abort marker (Marker). Readers and
// consumers never read at or past the first entry of the oldest open
// transaction (the max-read position, ReadLimit), so committed messages
// become visible in publish order; entries of aborted transactions and
// markers are skipped (and acknowledged) by dispatch (Hidden, Skip). The
// state is rebuilt from the ledger when the topic loads (Rebuild), so it
// survives a restart and a crash with the entries.
//
// A Buffer is owned by its topic's goroutine. A nil *Buffer is the buffer
// of a topic without transactions (the coordinator off, or a
// non-persistent topic): its methods answer as for a topic where no
// transaction ever was, markers still hidden.
type Buffer struct {
	open map[ID]ledger.Position // first entry of each open transaction
	// aborted holds the aborted transactions with entries here, by the
	// position of their abort marker; one is forgotten once the ledger of
	// its marker is trimmed, and with it every entry of the transaction
	// (PruneAborted), as Pulsar's trimExpiredAbortedTxns.
	aborted map[ID]ledger.Position
	acks    map[string]*PendingAcks // transactional acks by subscription (pending.go)
}

// Entry is what the buffer reads of a stored entry's metadata.
type Entry struct {
	Pos      ledger.Position
	InTxn    bool  // the metadata has a transaction id
	Txn      ID    // that id
	Marker   int32 // marker_type, 0 for a message
	Messages int   // messages in the entry (a batch's size, else 1)
}

// Entries is a topic's ledger as the buffer reads it.
type Entries interface {
	// Last is the last stored position.
	Last() (ledger.Position, bool)
	// Prev is the stored position before p.
	Prev(p ledger.Position) (ledger.Position, bool)
	// Entry reads the entry at p; false when none is stored there.
	Entry(p ledger.Position) (Entry, bool)
}

// Cursor is a subscription's ack state as the buffer reads and changes
// it (*cursor.Cursor).
type Cursor interface {
	// MarkDelete is the position up to which everything is acknowledged.
	MarkDelete() ledger.Position
	// IsAcked reports whether the whole entry at p is acknowledged.
	IsAcked(p ledger.Position) bool
	// AckSet is the batch-index ack set at p, nil when none is kept.
	AckSet(p ledger.Position) []int64
	// AckIndividual acknowledges p (a nil ackSet: the whole entry of
	// batchSize messages).
	AckIndividual(p ledger.Position, ackSet []int64, batchSize int) bool
}

// Rebuild builds a topic's buffer from its stored entries, in ledger order
// (only the transactional ones count). Transactions the coordinator has
// since forgotten are still open in it: Orphans lists them.
func Rebuild(entries iter.Seq[Entry]) *Buffer {
	b := &Buffer{open: map[ID]ledger.Position{}, aborted: map[ID]ledger.Position{}, acks: map[string]*PendingAcks{}}
	ended := map[ID]bool{}
	for e := range entries {
		if !e.InTxn {
			continue
		}
		switch e.Marker {
		case MarkerCommit, MarkerAbort:
			delete(b.open, e.Txn)
			ended[e.Txn] = true
			if e.Marker == MarkerAbort {
				b.aborted[e.Txn] = e.Pos
			}
		default:
			if _, ok := b.open[e.Txn]; !ok && !ended[e.Txn] {
				b.open[e.Txn] = e.Pos
			}
		}
	}
	return b
}

// Orphans are the transactions open in b that c does not know (any more):
// the topic aborts them.
func (b *Buffer) Orphans(c *Coordinator) []ID {
	var out []ID
	for id := range b.open {
		if err := c.CheckOpen(id); errorIsGone(err) {
			out = append(out, id)
		}
	}
	return out
}

// LoadAcks holds pending in b the acks c keeps for topic's subscriptions.
func (b *Buffer) LoadAcks(c *Coordinator, topic string) {
	for id, recs := range c.pendingAcksOn(topic) {
		for _, r := range recs {
			b.subAcks(r.Sub).add(id, r)
		}
	}
}

// IsOpen reports whether id has entries here and has not ended.
func (b *Buffer) IsOpen(id ID) bool {
	if b == nil {
		return false
	}
	_, ok := b.open[id]
	return ok
}

// Stored records that a message of id was stored at p.
func (b *Buffer) Stored(id ID, p ledger.Position) {
	if _, ok := b.open[id]; !ok {
		b.open[id] = p
	}
}

// Ended records that id ended here with its marker at p: its messages are
// visible (commit) or never dispatched (abort).
func (b *Buffer) Ended(id ID, commit bool, p ledger.Position) {
	delete(b.open, id)
	if !commit {
		b.aborted[id] = p
	}
}

// PruneAborted forgets the aborted transactions whose abort marker is no
// longer stored (stored reports it): retention trimmed its ledger, and
// every entry of the transaction (all before the marker) with it. Called
// after a trim, so that the set is bounded by what the topic stores.
func (b *Buffer) PruneAborted(stored func(ledger.Position) bool) {
	if b == nil {
		return
	}
	for id, marker := range b.aborted {
		if !stored(marker) {
			delete(b.aborted, id)
		}
	}
}

// ReadLimit is the max-read position: entries at or after it are not
// readable (false when no transaction is open on the topic).
func (b *Buffer) ReadLimit() (ledger.Position, bool) {
	if b == nil || len(b.open) == 0 {
		return ledger.Position{}, false
	}
	var lim ledger.Position
	first := true
	for _, p := range b.open {
		if first || p.Less(lim) {
			lim, first = p, false
		}
	}
	return lim, true
}

// Hidden reports whether an entry is never dispatched: a marker, or a
// message of an aborted transaction.
func (b *Buffer) Hidden(e Entry) bool {
	if e.Marker != 0 {
		return true
	}
	if !e.InTxn || b == nil {
		return false
	}
	_, aborted := b.aborted[e.Txn]
	return aborted
}

// LastDispatchable is the last entry a consumer may be given (Pulsar's
// getLastDispatchablePosition): before the max-read position, not a
// marker, not aborted. Without a buffer it is the last entry.
func (b *Buffer) LastDispatchable(es Entries) (ledger.Position, bool) {
	p, ok := es.Last()
	if b == nil {
		return p, ok
	}
	lim, limited := b.ReadLimit()
	for ok {
		if !limited || p.Less(lim) {
			if e, found := es.Entry(p); found && !b.Hidden(e) {
				return p, true
			}
		}
		p, ok = es.Prev(p)
	}
	return ledger.Position{}, false
}

// Skip reports whether dispatch passes over the unacknowledged entry at p:
// a marker or an aborted message, which it acknowledges on cur.
func (b *Buffer) Skip(es Entries, cur Cursor, p ledger.Position) bool {
	if b == nil {
		return false
	}
	e, ok := es.Entry(p)
	if !ok || !b.Hidden(e) {
		return false
	}
	cur.AckIndividual(p, nil, e.Messages)
	return true
}

// InBuffer is what b knows of id for the admin API: the position of its
// first message here (while open) and whether it was aborted.
func (b *Buffer) InBuffer(id ID) InBufferStats {
	var out InBufferStats
	if b == nil {
		return out
	}
	if p, ok := b.open[id]; ok {
		s := p.String()
		out.StartPosition = &s
	}
	_, out.Aborted = b.aborted[id]
	return out
}

// Aborted is how many aborted transactions b remembers (those whose abort
// marker is still stored).
func (b *Buffer) Aborted() int {
	if b == nil {
		return 0
	}
	return len(b.aborted)
}
