package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// handleSeek resets the subscription to a message id or a publish time and,
// as Pulsar does, disconnects its consumers so that they reconnect and read
// from there.
func (c *conn) handleSeek(m *proto.CommandSeek) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.sendError(rid, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	if m.MessageId == nil && m.MessagePublishTime == nil {
		c.sendError(rid, proto.ServerError_NotAllowedError, "seek needs a message id or a publish time")
		return
	}
	t := cs.sub.t
	if t.np != nil {
		c.npSeek(rid)
		return
	}
	err := t.call(func() {
		s := cs.sub
		var pos ledger.Position
		var ackSet []int64
		if id := m.GetMessageId(); id != nil {
			pos = t.seekPosition(id)
			if !t.b.opts.DisableBatchIndexAck {
				ackSet = id.GetAckSet()
			}
		} else {
			pos = t.led.FindByPublishTime(m.GetMessagePublishTime())
		}
		s.disconnectAll(true)
		s.reset(pos, ackSet)
		s.persist(false)
		c.sendSuccess(rid)
	})
	if err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	}
}

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

// handleGetLastMessageID answers with the topic's last message id and the
// subscription's mark-delete position, as Pulsar's ServerCnx does since 2.8.
func (c *conn) handleGetLastMessageID(m *proto.CommandGetLastMessageId) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.sendError(rid, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	t := cs.sub.t
	if t.np != nil {
		c.npLastMessageID(rid)
		return
	}
	err := t.call(func() {
		resp := &proto.CommandGetLastMessageIdResponse{RequestId: &rid, LastMessageId: t.lastMessageIDFor(cs)}
		if t.name.Domain == "persistent" {
			resp.ConsumerMarkDeletePosition = t.markDeleteID(cs.sub.cur.MarkDelete())
		}
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE.Enum(), GetLastMessageIdResponse: resp})
	})
	if err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	}
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
