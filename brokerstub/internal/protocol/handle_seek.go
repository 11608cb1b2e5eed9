package protocol

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// handleSeek resets the subscription to a message id or a publish time and,
// as Pulsar does, disconnects its consumers so that they reconnect and read
// from there.
func (c *Conn) handleSeek(m *proto.CommandSeek) {
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
	t := cs.Sub.T
	if t.Np != nil {
		c.npSeek(rid)
		return
	}
	err := t.Call(func() {
		s := cs.Sub
		var pos ledger.Position
		var ackSet []int64
		if id := m.GetMessageId(); id != nil {
			pos = t.SeekPosition(id)
			if !t.B.Cfg.DisableBatchIndexAck {
				ackSet = id.GetAckSet()
			}
		} else {
			pos = t.Led.FindByPublishTime(m.GetMessagePublishTime())
		}
		s.DisconnectAll(true)
		s.Reset(pos, ackSet)
		s.Persist(false)
		c.sendSuccess(rid)
	})
	if err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	}
}

// handleGetLastMessageID answers with the topic's last message id and the
// subscription's mark-delete position, as Pulsar's ServerCnx does since 2.8.
func (c *Conn) handleGetLastMessageID(m *proto.CommandGetLastMessageId) {
	rid := m.GetRequestId()
	cs := c.consumer(m.GetConsumerId())
	if cs == nil {
		c.sendError(rid, proto.ServerError_ConsumerNotFound, "consumer not found")
		return
	}
	t := cs.Sub.T
	if t.Np != nil {
		c.npLastMessageID(rid)
		return
	}
	err := t.Call(func() {
		resp := &proto.CommandGetLastMessageIdResponse{RequestId: &rid, LastMessageId: t.LastMessageIDFor(cs)}
		if t.Name.Domain == "persistent" {
			resp.ConsumerMarkDeletePosition = t.MarkDeleteID(cs.Sub.Cur.MarkDelete())
		}
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE.Enum(), GetLastMessageIdResponse: resp})
	})
	if err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
	}
}

// npSeek answers a SEEK on a non-persistent topic as Pulsar's
// NonPersistentSubscription does: success, and nothing moves (its consumers
// stay attached).
func (c *Conn) npSeek(rid uint64) { c.sendSuccess(rid) }

// npLastMessageID refuses GET_LAST_MESSAGE_ID on a non-persistent topic
// with the error Pulsar's ServerCnx answers when the topic cannot tell its
// last dispatchable position.
func (c *Conn) npLastMessageID(rid uint64) {
	c.sendError(rid, proto.ServerError_UnknownError, "Failed to recover Transaction Buffer.")
}
