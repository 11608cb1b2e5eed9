package conn

import (
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// ProducerHandler receives what the broker pushes for one producer. Its
// methods are called from the connection's reader goroutine and must not
// block.
type ProducerHandler interface {
	// Receipt is a send receipt.
	Receipt(*proto.CommandSendReceipt)
	// SendError is a failed send.
	SendError(*proto.CommandSendError)
	// Closed reports that the broker closed the producer (it reconnects).
	Closed()
	// ConnectionClosed reports that the connection went away.
	ConnectionClosed()
}

// ConsumerHandler receives what the broker pushes for one consumer. Its
// methods are called from the connection's reader goroutine and must not
// block.
type ConsumerHandler interface {
	// Message is a delivered message. err is set when the frame was read
	// but its payload or metadata is bad (checksum, malformed); f.Cmd is
	// valid either way.
	Message(m *proto.CommandMessage, f *wire.Frame, err error)
	// ActiveChanged reports a Failover consumer becoming (in)active.
	ActiveChanged(active bool)
	// ReachedEndOfTopic reports a terminated topic.
	ReachedEndOfTopic()
	// Closed reports that the broker closed the consumer (it reconnects).
	Closed()
	// ConnectionClosed reports that the connection went away.
	ConnectionClosed()
}

// RegisterProducer routes producer id's commands to h. It reports false when
// the connection is already closed.
func (c *Conn) RegisterProducer(id uint64, h ProducerHandler) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Err() != nil {
		return false
	}
	c.producers[id] = h
	return true
}

// UnregisterProducer stops routing to producer id.
func (c *Conn) UnregisterProducer(id uint64) {
	c.mu.Lock()
	delete(c.producers, id)
	c.mu.Unlock()
}

// RegisterConsumer routes consumer id's commands to h. It reports false when
// the connection is already closed.
func (c *Conn) RegisterConsumer(id uint64, h ConsumerHandler) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Err() != nil {
		return false
	}
	c.consumers[id] = h
	return true
}

// UnregisterConsumer stops routing to consumer id.
func (c *Conn) UnregisterConsumer(id uint64) {
	c.mu.Lock()
	delete(c.consumers, id)
	c.mu.Unlock()
}

func (c *Conn) producer(id uint64) ProducerHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.producers[id]
}

// Consumes reports whether consumer id is registered: false once
// UnregisterConsumer was called for it, or the broker closed it
// (CLOSE_CONSUMER, which unregisters it before its handler is told).
func (c *Conn) Consumes(id uint64) bool { return c.consumer(id) != nil }

func (c *Conn) consumer(id uint64) ConsumerHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.consumers[id]
}
