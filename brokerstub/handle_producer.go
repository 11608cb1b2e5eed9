package brokerstub

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// brokerRequestID is the request id of commands the broker starts itself
// (CloseProducer, CloseConsumer), as Pulsar's -1L.
const brokerRequestID = ^uint64(0)

// producer is a producer attached to a topic through a connection.
type producer struct {
	id   uint64
	name string
	c    *conn
	t    *topic
	mode proto.ProducerAccessMode
	// waiting is set while a WaitForExclusive producer is queued (access.go).
	waiting atomic.Bool
	// schemaVersion is the version of the producer's schema, empty without one.
	schemaVersion []byte
	// receipt is the SEND_RECEIPT its topic's goroutine fills in and
	// encodes for every stored entry (handle_send.go).
	receipt receiptScratch
}

func (c *conn) handleProducer(m *proto.CommandProducer) {
	rid := m.GetRequestId()
	name, ok := c.attachableTopic(rid, m.GetTopic())
	if !ok || !c.authorizeTopic(rid, name, actProduce, "") || c.refuseMissingNamespace(rid, name) {
		return
	}
	t, err := c.b.topicForUse(name)
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
	if code, reason := c.b.refuseUnencryptedProducer(name, m.GetEncrypted()); reason != "" {
		c.sendError(rid, code, reason) // gates.go
		return
	}

	version, err := c.b.addProducerSchema(name, m.GetSchema())
	if err != nil {
		c.sendError(rid, schemaError(err), err.Error())
		return
	}
	p := &producer{id: m.GetProducerId(), name: m.GetProducerName(), c: c, t: t, mode: m.GetProducerAccessMode(), schemaVersion: version}
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

// withLastSequenceID sets a PRODUCER_SUCCESS's last_sequence_id: -1 unless
// deduplication knows the producer name (dedup.go).
func withLastSequenceID(last int64) func(*proto.CommandProducerSuccess) {
	return func(ps *proto.CommandProducerSuccess) { ps.LastSequenceId = &last }
}

// producerSuccess answers a PRODUCER; opts set optional fields.
func (c *conn) producerSuccess(rid uint64, name string, opts ...func(*proto.CommandProducerSuccess)) {
	last := int64(-1)
	ps := &proto.CommandProducerSuccess{RequestId: &rid, ProducerName: &name, LastSequenceId: &last}
	for _, o := range opts {
		o(ps)
	}
	c.write(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER_SUCCESS.Enum(), ProducerSuccess: ps})
}

// receipt is the CommandSendReceipt for an entry stored at pos.
func (t *topic) receipt(producerID, seq, highest uint64, pos ledger.Position) *proto.BaseCommand {
	l, e := uint64(pos.Ledger), uint64(pos.Entry)
	part := int32(t.name.Partition)
	r := &proto.CommandSendReceipt{ProducerId: &producerID, SequenceId: &seq,
		MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &e, Partition: &part}}
	if highest > 0 {
		r.HighestSequenceId = &highest
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND_RECEIPT.Enum(), SendReceipt: r}
}

func sendError(producerID, seq uint64, code proto.ServerError, msg string) *proto.BaseCommand {
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND_ERROR.Enum(), SendError: &proto.CommandSendError{
		ProducerId: &producerID, SequenceId: &seq, Error: code.Enum(), Message: &msg}}
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

// addProducer attaches p, naming it if the client gave no name; it reports
// false when another producer already has p's name.
func (t *topic) addProducer(p *producer) bool {
	if p.name == "" {
		p.name = fmt.Sprintf("brokerstub-%d-%d", p.c.id, p.id)
	}
	for q := range t.producers {
		if q.name == p.name {
			return false
		}
	}
	t.producers[p] = struct{}{}
	t.dedup.producerJoined(p.name) // dedup_inactive.go
	return true
}

// removeProducer detaches p after its connection closed.
func (t *topic) removeProducer(p *producer) {
	t.do(func() { t.producerGone(p) })
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
	if name.Partition < 0 && c.b.partitionCount(name.Full) > 0 {
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

// closeProducers sends CloseProducer to every producer and detaches them;
// the clients reconnect. Topic goroutine.
func (t *topic) closeProducers() {
	for p := range t.producers {
		id, rid := p.id, brokerRequestID
		p.c.write(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{ProducerId: &id, RequestId: &rid}})
		t.forgetOnConn(p)
	}
	t.producers = map[*producer]struct{}{}
}
