package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

func (c *conn) handleAck(m *proto.CommandAck) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.ackResponse(m, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	if id, ok := txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits); ok {
		c.handleTxnAck(cs, m, id) // txn_ack.go
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
	r := &proto.CommandAckResponse{ConsumerId: m.ConsumerId, RequestId: m.RequestId,
		TxnidMostBits: m.TxnidMostBits, TxnidLeastBits: m.TxnidLeastBits} // unset unless transactional
	if msg != "" {
		r.Error, r.Message = code.Enum(), &msg
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_ACK_RESPONSE.Enum(), AckResponse: r})
}

// ack applies an individual or cumulative ack to the cursor and drops what
// became fully acknowledged from the consumers' pending sets. cs is nil for
// the acks of a committed transaction (txn_ack.go).
func (s *subscription) ack(cs *consumer, m *proto.CommandAck) (proto.ServerError, string) {
	cumulative := m.GetAckType() == proto.CommandAck_Cumulative
	if cumulative && (s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared) {
		// As Pulsar's Consumer.messageAcked: ignored (clients refuse to send
		// it), and a requested receipt reports success.
		s.t.b.log.Warn("Received cumulative ack on shared subscription, ignoring",
			"topic", s.t.name.Full, "sub", s.name, "consumer", cs.id)
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
			if cs == nil || !s.release(cs, pos) {
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
