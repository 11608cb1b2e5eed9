package engine

import (
	"math"

	"github.com/pulsargo/sdk/brokerstub/internal/cursor"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// seekPosition maps a seek's message id to the first entry to deliver:
// earliest and latest map to the topic's ends.
func (t *Topic) seekPosition(id *proto.MessageIdData) ledger.Position {
	l, e := int64(id.GetLedgerId()), int64(id.GetEntryId())
	if l < 0 || e < 0 {
		if first, ok := t.Led.First(); ok {
			return first
		}
		return t.emptyStart()
	}
	if l == int64(^uint64(0)>>1) {
		if last, ok := t.Led.Last(); ok {
			return ledger.Position{Ledger: last.Ledger, Entry: last.Entry + 1}
		}
		return t.emptyStart()
	}
	return ledger.Position{Ledger: l, Entry: e}
}

// emptyStart is where a seek to earliest or latest puts the cursor of an
// empty topic: entry 0 of the ledger that takes the next append, so that the
// mark-delete position is {that ledger, -1}, as Pulsar's.
func (t *Topic) emptyStart() ledger.Position {
	return ledger.Position{Ledger: t.Led.CurrentLedger(), Entry: 0}
}

// lastMessageID is the id of the topic's last message as Pulsar reports it:
// the last entry, with batch_index the largest index of its batch (-1 when
// its metadata has no num_messages_in_batch), and the partition index. An
// empty topic reports -1:-1, batch index -1.
func (t *Topic) lastMessageID() *proto.MessageIdData {
	part, batch := int32(t.name.Partition), int32(-1)
	l, e := int64(-1), int64(-1)
	if p, ok := t.lastDispatchable(); ok { // txn_topic.go
		l, e = p.Ledger, p.Entry
		if entry, ok := t.Led.Get(p); ok {
			if in := t.info(entry); in.batched {
				batch = in.numMessages - 1
			}
		}
	}
	ul, ue := uint64(l), uint64(e)
	return &proto.MessageIdData{LedgerId: &ul, EntryId: &ue, Partition: &part, BatchIndex: &batch}
}

// markDeleteID is a subscription's mark-delete position as Pulsar's managed
// cursor has it. Pulsar never has a negative ledger there: a cursor before
// every entry sits at {first ledger, -1} ({current ledger, -1} on an empty
// topic), where the stub's cursor has ledger.Earliest or a position just
// before it; that is mapped to the same {ledger, -1}. (Pulsar leaves the
// field out only when the ledger id is negative, so with the mapping it is
// always sent, for durable and non-durable subscriptions alike: both are
// PersistentSubscriptions with a cursor.)
func (t *Topic) markDeleteID(md ledger.Position) *proto.MessageIdData {
	if md.Ledger < 0 {
		md = ledger.Position{Ledger: t.Led.CurrentLedger(), Entry: -1}
		if first, ok := t.Led.First(); ok {
			md.Ledger = first.Ledger
		}
	}
	l, e := uint64(md.Ledger), uint64(md.Entry)
	return &proto.MessageIdData{LedgerId: &l, EntryId: &e}
}

func posOf(id *proto.MessageIdData) ledger.Position {
	return ledger.Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}

// addDurableSubscription creates, on t's goroutine, a durable subscription
// without consumers whose next message is the entry at next (beforeFirst:
// the earliest), and persists it; what the admin API's subscription
// create, and a peek on a missing subscription, make.
func (t *Topic) addDurableSubscription(name string, next ledger.Position) *Subscription {
	s := t.newSubscription(name, true, proto.CommandSubscribe_Exclusive, cursor.New(beforeFirst, t.Led, t.cursorOptions()))
	t.Subs[name] = s
	if next != beforeFirst {
		s.Reset(next, nil)
	}
	s.persist(true)
	return s
}

// idPosition maps a message id body to the next entry to deliver, as a
// seek does; an empty body is latest.
func (t *Topic) idPosition(d ResetCursorData) ledger.Position {
	l, e := int64(math.MaxInt64), int64(math.MaxInt64)
	if d.LedgerID != nil {
		l = *d.LedgerID
	}
	if d.EntryID != nil {
		e = *d.EntryID
	}
	ul, ue := uint64(l), uint64(e)
	pos := t.seekPosition(&proto.MessageIdData{LedgerId: &ul, EntryId: &ue})
	if d.IsExcluded && l >= 0 && l != math.MaxInt64 {
		if next, ok := t.Led.Next(pos); ok {
			return next
		}
		return ledger.Position{Ledger: pos.Ledger, Entry: pos.Entry + 1}
	}
	return pos
}

// LastMessageJSON is the id of the topic's last entry, -1:-1 when empty, for the admin API.
func (t *Topic) LastMessageJSON() MessageIDJSON {
	id := MessageIDJSON{LedgerID: -1, EntryID: -1, PartitionIndex: t.name.Partition}
	if p, ok := t.Led.Last(); ok {
		id.LedgerID, id.EntryID = p.Ledger, p.Entry
	}
	return id
}

// ResetCursorData is Pulsar's ResetCursorData / MessageIdImpl body.
type ResetCursorData struct {
	LedgerID       *int64 `json:"ledgerId"`
	EntryID        *int64 `json:"entryId"`
	PartitionIndex *int   `json:"partitionIndex"`
	BatchIndex     *int   `json:"batchIndex"`
	IsExcluded     bool   `json:"isExcluded"`
}

// MessageIDJSON is Pulsar's MessageIdImpl as the admin API writes it.
type MessageIDJSON struct {
	LedgerID       int64 `json:"ledgerId"`
	EntryID        int64 `json:"entryId"`
	PartitionIndex int   `json:"partitionIndex"`
	BatchIndex     *int  `json:"batchIndex,omitempty"`
}
