package brokerstub

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/proto"
)

func (c *conn) handleProducer(m *proto.CommandProducer) {
	rid := m.GetRequestId()
	name, ok := c.attachableTopic(rid, m.GetTopic())
	if !ok || !c.authorizeTopic(rid, name, actProduce, "") || c.refuseMissingNamespace(rid, name) {
		return
	}
	t, err := c.b.eng.topicForUse(name)
	if err != nil {
		c.sendError(rid, topicErrorCode(err), err.Error())
		return
	}
	c.mu.Lock()
	if p, ok := c.producers[m.GetProducerId()]; ok {
		c.mu.Unlock()
		if p.waiting.Load() {
			// As Pulsar: the first request is still being processed.
			c.sendError(rid, proto.ServerError_ServiceNotReady, "Producer is already present on the connection")
			return
		}
		// A retried create of a producer that exists: same answer again.
		last := int64(-1)
		_ = p.t.call(func() { last = p.t.dedup.lastSequenceID(p.name) })
		c.producerSuccess(rid, p.name, withSchemaVersion(p.schemaVersion), withLastSequenceID(last))
		return
	}
	c.mu.Unlock()
	if code, reason := c.b.eng.refuseUnencryptedProducer(name, m.GetEncrypted()); reason != "" {
		c.sendError(rid, code, reason) // gates.go
		return
	}

	version, err := c.b.eng.addProducerSchema(name, m.GetSchema())
	if err != nil {
		c.sendError(rid, schemaError(err), err.Error())
		return
	}
	p := &producer{id: m.GetProducerId(), name: m.GetProducerName(), peer: c, t: t, mode: m.GetProducerAccessMode(), schemaVersion: version}
	var adm admission
	last := int64(-1)
	if err := t.call(func() {
		// Max producers, terminated topics and exceeded backlog quotas
		// refuse producers (limits.go, backlog_quota.go).
		if code, reason := t.refuseProducerLimit(); reason != "" {
			adm = admission{code: code, msg: reason}
			return
		}
		if code, reason := t.refuseSameAddressProducer(c); reason != "" {
			adm = admission{code: code, msg: reason} // gates.go
			return
		}
		if code, reason := t.refuseProducer(); reason != "" {
			adm = admission{code: code, msg: reason}
			return
		}
		if t.np == nil {
			// A non-persistent topic keeps no subscription without a
			// consumer: Pulsar ignores initial_subscription_name there.
			adm = t.createInitialSubscription(m)
		}
		if adm.msg == "" {
			adm = t.admit(p, rid, m)
		}
		if adm.msg == "" {
			// Registered on the topic goroutine, so that fencing or
			// admission (access.go) never races with it.
			c.mu.Lock()
			c.producers[p.id] = p
			c.mu.Unlock()
			if !adm.waiting {
				t.noteProducer(p, m)
				last = t.dedup.lastSequenceID(p.name)
			}
		}
		if adm.waiting {
			// Queued (WaitForExclusive): answered again, ready, when
			// admitted; this answer goes first.
			c.producerSuccess(rid, p.name, notReady, withSchemaVersion(version))
		}
	}); err != nil {
		c.sendError(rid, proto.ServerError_ServiceNotReady, err.Error())
		return
	}
	if adm.msg != "" {
		c.sendError(rid, adm.code, adm.msg)
		return
	}
	if adm.waiting {
		return
	}
	c.producerSuccess(rid, p.name, withEpoch(adm.epoch), withSchemaVersion(p.schemaVersion), withLastSequenceID(last))
}

// producerSuccess answers a PRODUCER; opts set optional fields.
func (c *conn) producerSuccess(rid uint64, name string, opts ...func(*proto.CommandProducerSuccess)) {
	c.write(producerSuccessCmd(rid, name, opts...))
}

func (c *conn) handleCloseProducer(m *proto.CommandCloseProducer) {
	rid := m.GetRequestId()
	c.mu.Lock()
	p := c.producers[m.GetProducerId()]
	delete(c.producers, m.GetProducerId())
	c.mu.Unlock()
	if p != nil {
		_ = p.t.call(func() { p.t.producerGone(p) })
	}
	c.sendSuccess(rid)
}

// attachableTopic parses the topic a producer or consumer wants to attach
// to and checks it is not the parent of partitions (clients attach to the
// partitions); it answers request rid with the error when not.
func (c *conn) attachableTopic(rid uint64, topic string) (topicName, bool) {
	name, err := parseTopic(topic)
	if err != nil {
		c.sendError(rid, proto.ServerError_InvalidTopicName, err.Error())
		return name, false
	}
	if name.Partition < 0 && c.b.eng.partitionCount(name.Full) > 0 {
		c.sendError(rid, proto.ServerError_NotAllowedError, name.Full+" is partitioned: attach to its partitions")
		return name, false
	}
	return name, true
}

// topicErrorCode maps an error from loading a topic to a Pulsar error code.
func topicErrorCode(err error) proto.ServerError {
	switch {
	case errors.Is(err, errTopicNotFound):
		return proto.ServerError_TopicNotFound
	case errors.Is(err, errInvalidTopic):
		return proto.ServerError_InvalidTopicName
	}
	var r *refusal
	if errors.As(err, &r) {
		return r.code // limits.go
	}
	return proto.ServerError_ServiceNotReady
}

// refuseMissingNamespace answers a PRODUCER or SUBSCRIBE on a topic whose
// namespace does not exist, as Pulsar does when no lookup gave this broker
// the namespace's bundle: ServiceNotReady. It reports whether it answered.
func (c *conn) refuseMissingNamespace(rid uint64, name topicName) bool {
	if c.b.eng.namespaceReady(name) {
		return false
	}
	c.sendError(rid, proto.ServerError_ServiceNotReady, fmt.Sprintf(
		"Namespace bundle for topic (%s) not served by this instance:%s. Please redo the lookup. Request is denied: namespace=%s",
		name.Full, c.b.advertise(c.b.Addr()), name.Namespace))
	return true
}
