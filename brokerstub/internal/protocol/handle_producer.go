package protocol

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
)

func (c *Conn) handleProducer(m *proto.CommandProducer) {
	rid := m.GetRequestId()
	name, ok := c.attachableTopic(rid, m.GetTopic())
	if !ok || !c.authorizeTopic(rid, name, engine.ActProduce, "") || c.refuseMissingNamespace(rid, name) {
		return
	}
	t, err := c.b.Eng.TopicForUse(name)
	if err != nil {
		c.sendError(rid, topicErrorCode(err), err.Error())
		return
	}
	c.mu.Lock()
	if p, ok := c.producers[m.GetProducerId()]; ok {
		c.mu.Unlock()
		// A retried create of a producer that exists: same answer again.
		c.write(p.AnswerRetry(rid))
		return
	}
	c.mu.Unlock()
	if code, reason := c.b.Eng.RefuseUnencryptedProducer(name, m.GetEncrypted()); reason != "" {
		c.sendError(rid, code, reason) // gates.go
		return
	}

	version, err := c.b.Eng.AddProducerSchema(name, m.GetSchema())
	if err != nil {
		c.sendError(rid, engine.SchemaError(err), err.Error())
		return
	}
	p := engine.NewProducer(c, t, m, version)
	answer, err := t.AttachProducer(p, rid, m, func() {
		c.mu.Lock()
		c.producers[p.ID()] = p
		c.mu.Unlock()
	})
	if err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
		return
	}
	if answer != nil { // nil: queued, answered when admitted
		c.write(answer)
	}
}

func (c *Conn) handleCloseProducer(m *proto.CommandCloseProducer) {
	rid := m.GetRequestId()
	c.mu.Lock()
	p := c.producers[m.GetProducerId()]
	delete(c.producers, m.GetProducerId())
	c.mu.Unlock()
	if p != nil {
		p.Close()
	}
	c.sendSuccess(rid)
}

// attachableTopic parses the topic a producer or consumer wants to attach
// to and checks it is not the parent of partitions (clients attach to the
// partitions); it answers request rid with the error when not.
func (c *Conn) attachableTopic(rid uint64, topic string) (engine.TopicName, bool) {
	name, err := engine.ParseTopic(topic)
	if err != nil {
		c.sendError(rid, proto.ServerError_InvalidTopicName, err.Error())
		return name, false
	}
	if name.Partition < 0 && c.b.Eng.PartitionCount(name.Full) > 0 {
		c.sendError(rid, proto.ServerError_NotAllowedError, name.Full+" is partitioned: attach to its partitions")
		return name, false
	}
	return name, true
}

// topicErrorCode maps an error from loading a topic to a Pulsar error code.
func topicErrorCode(err error) proto.ServerError {
	switch {
	case errors.Is(err, engine.ErrTopicNotFound):
		return proto.ServerError_TopicNotFound
	case errors.Is(err, engine.ErrInvalidTopic):
		return proto.ServerError_InvalidTopicName
	}
	var r *engine.Refusal
	if errors.As(err, &r) {
		return r.Code // limits.go
	}
	return proto.ServerError_ServiceNotReady
}

// refuseMissingNamespace answers a PRODUCER or SUBSCRIBE on a topic whose
// namespace does not exist, as Pulsar does when no lookup gave this broker
// the namespace's bundle: ServiceNotReady. It reports whether it answered.
func (c *Conn) refuseMissingNamespace(rid uint64, name engine.TopicName) bool {
	if c.b.Eng.NamespaceReady(name) {
		return false
	}
	c.sendError(rid, proto.ServerError_ServiceNotReady, fmt.Sprintf(
		"Namespace bundle for topic (%s) not served by this instance:%s. Please redo the lookup. Request is denied: namespace=%s",
		name.Full, c.b.Hooks.AdvertisedAddr(), name.Namespace))
	return true
}
