package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

func posOf(id *proto.MessageIdData) ledger.Position {
	return ledger.Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}

func (c *conn) handleAck(m *proto.CommandAck) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.ackResponse(m, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	t := cs.sub.t
	ok := t.do(func() {
		code, msg := cs.sub.ack(cs, m)
		cs.sub.persist(false)
		c.ackResponse(m, code, msg)
		if msg == "" {
			cs.sub.dispatch()
		}
	})
	if !ok {
		c.ackResponse(m, proto.ServerError_ServiceNotReady, "topic is being unloaded")
	}
}

// ackResponse sends an ack receipt when the client asked for one (by
// setting request_id); msg == "" means success.
func (c *conn) ackResponse(m *proto.CommandAck, code proto.ServerError, msg string) {
	if m.RequestId == nil {
		if msg != "" {
			c.log.Info("ack failed", "consumer", m.GetConsumerId(), "err", msg)
		}
		return
	}
	r := &proto.CommandAckResponse{ConsumerId: m.ConsumerId, RequestId: m.RequestId}
	if msg != "" {
		r.Error, r.Message = code.Enum(), &msg
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_ACK_RESPONSE.Enum(), AckResponse: r})
}

// ack applies an individual or cumulative ack to the cursor and drops what
// became fully acknowledged from the consumers' pending sets.
func (s *subscription) ack(cs *consumer, m *proto.CommandAck) (proto.ServerError, string) {
	cumulative := m.GetAckType() == proto.CommandAck_Cumulative
	if cumulative && (s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared) {
		// As Pulsar's Consumer.messageAcked: ignored (clients refuse to send
		// it), and a requested receipt reports success.
		s.t.b.log.Warn("Received cumulative ack on shared subscription, ignoring",
			"topic", s.t.name.full, "sub", s.name, "consumer", cs.id)
		return 0, ""
	}
	for _, id := range m.GetMessageId() {
		pos := posOf(id)
		e, ok := s.t.led.Get(pos)
		if !ok {
			continue
		}
		batch := int(s.t.info(e).numMessages)
		ackSet := id.GetAckSet()
		if len(ackSet) > 0 && s.t.b.opts.DisableBatchIndexAck {
			// As Pulsar with batch-index acks off: an ack of part of a batch
			// acknowledges nothing of it (individual) or only what precedes
			// it (cumulative); the whole batch is redelivered, never lost.
			if !cumulative {
				continue
			}
			prev, ok := s.t.led.Prev(pos)
			if !ok {
				continue
			}
			pos, ackSet = prev, nil
			if pe, ok := s.t.led.Get(pos); ok {
				batch = int(s.t.info(pe).numMessages)
			}
		}
		if cumulative {
			s.cur.AckCumulative(pos, ackSet, batch)
			md := s.cur.MarkDelete()
			for _, other := range s.consumers {
				for p := range other.pending {
					if !md.Less(p) {
						s.release(other, p)
					}
				}
			}
			continue
		}
		s.cur.AckIndividual(pos, ackSet, batch)
		if s.cur.IsAcked(pos) {
			// The entry may be held by another consumer of the subscription
			// (acknowledged by id after a reconnect): Pulsar releases it
			// from whichever consumer holds it.
			if !s.release(cs, pos) {
				for _, other := range s.consumers {
					if s.release(other, pos) {
						break
					}
				}
			}
			s.replay.Remove(pos)
			delete(s.redeliveries, pos)
		}
	}
	return 0, ""
}

func (c *conn) handleRedeliver(m *proto.CommandRedeliverUnacknowledgedMessages) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.log.Warn("redeliver for unknown consumer", "consumer", m.GetConsumerId())
		return
	}
	var only []ledger.Position
	for _, id := range m.GetMessageIds() {
		only = append(only, posOf(id))
	}
	all := len(m.GetMessageIds()) == 0
	cs.sub.t.do(func() {
		if cs.closed {
			return
		}
		if m.ConsumerEpoch != nil {
			cs.epoch = m.GetConsumerEpoch()
		}
		if all {
			cs.sub.requeue(cs, nil)
		} else {
			cs.sub.requeue(cs, only)
		}
		cs.sub.dispatch()
	})
}

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
		s.disconnectAll()
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
		return ledger.Position{}
	}
	if l == int64(^uint64(0)>>1) {
		if last, ok := t.led.Last(); ok {
			return ledger.Position{Ledger: last.Ledger, Entry: last.Entry + 1}
		}
		return ledger.Position{}
	}
	return ledger.Position{Ledger: l, Entry: e}
}

func (c *conn) handleGetLastMessageID(m *proto.CommandGetLastMessageId) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.sendError(rid, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	t := cs.sub.t
	err := t.call(func() {
		part := int32(t.name.partition)
		last := &proto.MessageIdData{Partition: &part}
		if p, ok := t.led.Last(); ok {
			e, _ := t.led.Get(p)
			l, en := uint64(p.Ledger), uint64(p.Entry)
			last.LedgerId, last.EntryId = &l, &en
			if n := t.info(e).numMessages; n > 1 {
				idx := n - 1
				last.BatchIndex = &idx
			}
		} else {
			none := ^uint64(0)
			last.LedgerId, last.EntryId = &none, &none
		}
		resp := &proto.CommandGetLastMessageIdResponse{LastMessageId: last, RequestId: &rid}
		if cs.sub.durable {
			md := cs.sub.cur.MarkDelete()
			l, en := uint64(md.Ledger), uint64(md.Entry)
			resp.ConsumerMarkDeletePosition = &proto.MessageIdData{LedgerId: &l, EntryId: &en}
		}
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE.Enum(), GetLastMessageIdResponse: resp})
	})
	if err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	}
}
