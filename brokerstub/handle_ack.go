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
