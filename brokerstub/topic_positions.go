package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// seekPosition maps a seek's message id to the first entry to deliver:
// earliest and latest map to the topic's ends.
func (t *topic) seekPosition(id *proto.MessageIdData) ledger.Position {
	l, e := int64(id.GetLedgerId()), int64(id.GetEntryId())
	if l < 0 || e < 0 {
		if first, ok := t.led.First(); ok {
			return first
		}
		return t.emptyStart()
	}
	if l == int64(^uint64(0)>>1) {
		if last, ok := t.led.Last(); ok {
			return ledger.Position{Ledger: last.Ledger, Entry: last.Entry + 1}
		}
		return t.emptyStart()
	}
	return ledger.Position{Ledger: l, Entry: e}
}

// emptyStart is where a seek to earliest or latest puts the cursor of an
// empty topic: entry 0 of the ledger that takes the next append, so that the
// mark-delete position is {that ledger, -1}, as Pulsar's.
func (t *topic) emptyStart() ledger.Position {
	return ledger.Position{Ledger: t.led.CurrentLedger(), Entry: 0}
}

// lastMessageID is the id of the topic's last message as Pulsar reports it:
// the last entry, with batch_index the largest index of its batch (-1 when
// its metadata has no num_messages_in_batch), and the partition index. An
// empty topic reports -1:-1, batch index -1.
func (t *topic) lastMessageID() *proto.MessageIdData {
	part, batch := int32(t.name.Partition), int32(-1)
	l, e := int64(-1), int64(-1)
	if p, ok := t.lastDispatchable(); ok { // txn_topic.go
		l, e = p.Ledger, p.Entry
		if entry, ok := t.led.Get(p); ok {
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
func (t *topic) markDeleteID(md ledger.Position) *proto.MessageIdData {
	if md.Ledger < 0 {
		md = ledger.Position{Ledger: t.led.CurrentLedger(), Entry: -1}
		if first, ok := t.led.First(); ok {
			md.Ledger = first.Ledger
		}
	}
	l, e := uint64(md.Ledger), uint64(md.Entry)
	return &proto.MessageIdData{LedgerId: &l, EntryId: &e}
}

func posOf(id *proto.MessageIdData) ledger.Position {
	return ledger.Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}
