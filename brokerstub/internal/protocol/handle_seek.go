package protocol

import (
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
	if cs.NonPersistent() {
		c.npSeek(rid)
		return
	}
	if err := cs.Seek(m, func() { c.sendSuccess(rid) }); err != nil {
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
	if cs.NonPersistent() {
		c.npLastMessageID(rid)
		return
	}
	err := cs.LastMessageID(rid, func(resp *proto.CommandGetLastMessageIdResponse) {
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
