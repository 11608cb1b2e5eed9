package protocol

import (
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

func (c *Conn) handleAck(m *proto.CommandAck) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.AnswerAck(m, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	if id, ok := txn.IDOf(m.TxnidMostBits, m.TxnidLeastBits); ok {
		c.handleTxnAck(cs, m, id) // txn_ack.go
		return
	}
	if !cs.Ack(m, c) {
		c.AnswerAck(m, proto.ServerError_ServiceNotReady, "topic is being unloaded")
	}
}

// AnswerAck sends an ack receipt when the client asked for one (by
// setting request_id); msg == "" means success (engine.AckAnswerer).
func (c *Conn) AnswerAck(m *proto.CommandAck, code proto.ServerError, msg string) {
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

func (c *Conn) handleRedeliver(m *proto.CommandRedeliverUnacknowledgedMessages) {
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.log.Warn("redeliver for unknown consumer", "consumer", m.GetConsumerId())
		return
	}
	cs.Redeliver(m)
}
