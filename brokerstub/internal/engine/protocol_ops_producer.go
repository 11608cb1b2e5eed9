package engine

// The operations the binary protocol (internal/protocol) asks of a
// producer: attach it to its topic, answer a retried PRODUCER, close and
// detach it. Each runs its part on the topic goroutine, so that the
// protocol reads and writes no field of a topic or a producer.

import "github.com/pulsargo/sdk/internal/proto"

// NewProducer is the producer PRODUCER m asks for on t, attached through
// pr with the schema version version (nil without a schema); it is not
// yet admitted (AttachProducer).
func NewProducer(pr peer, t *Topic, m *proto.CommandProducer, version []byte) *Producer {
	return &Producer{id: m.GetProducerId(), name: m.GetProducerName(), peer: pr, t: t,
		mode: m.GetProducerAccessMode(), schemaVersion: version}
}

// ID is the producer's id on its connection.
func (p *Producer) ID() uint64 { return p.id }

// Do queues f on the goroutine of the producer's topic; it reports false
// if the topic has stopped.
func (p *Producer) Do(f func()) bool { return p.t.Do(f) }

// AttachProducer admits p, asked for by request rid with m, on the topic
// goroutine: the limits, the topic's state and its access mode may refuse
// it; register is called there once it is admitted or queued, before any
// other answer can reach its client. It returns the answer to send (an
// error or PRODUCER_SUCCESS), nil when p was queued (WaitForExclusive: the
// not-ready answer has gone, the ready one goes when it is admitted), or
// an error when the topic stopped.
func (t *Topic) AttachProducer(p *Producer, rid uint64, m *proto.CommandProducer, register func()) (*proto.BaseCommand, error) {
	var adm Admission
	last := int64(-1)
	if err := t.Call(func() {
		// Max producers, terminated topics and exceeded backlog quotas
		// refuse producers (limits.go, backlog_quota.go).
		if code, reason := t.refuseProducerLimit(); reason != "" {
			adm = Admission{code: code, msg: reason}
			return
		}
		if code, reason := t.refuseSameAddressProducer(p.peer); reason != "" {
			adm = Admission{code: code, msg: reason} // gates.go
			return
		}
		if code, reason := t.refuseProducer(); reason != "" {
			adm = Admission{code: code, msg: reason}
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
			register()
			if !adm.waiting {
				t.noteProducer(p, m)
				last = t.dedup.LastSequenceID(p.name)
			}
		}
		if adm.waiting {
			// Queued (WaitForExclusive): answered again, ready, when
			// admitted; this answer goes first.
			p.peer.Send(producerSuccessCmd(rid, p.name, notReady, withSchemaVersion(p.schemaVersion)))
		}
	}); err != nil {
		return nil, err
	}
	switch {
	case adm.msg != "":
		return ErrorCmd(rid, adm.code, adm.msg), nil
	case adm.waiting:
		return nil, nil
	}
	return producerSuccessCmd(rid, p.name, withEpoch(adm.epoch), withSchemaVersion(p.schemaVersion), withLastSequenceID(last)), nil
}

// AnswerRetry is the answer to a PRODUCER request rid for p's id while p
// is attached: PRODUCER_SUCCESS again, or ServiceNotReady while p waits
// for exclusive access, as Pulsar answers.
func (p *Producer) AnswerRetry(rid uint64) *proto.BaseCommand {
	if p.waiting.Load() {
		// As Pulsar: the first request is still being processed.
		return ErrorCmd(rid, proto.ServerError_ServiceNotReady, "Producer is already present on the connection")
	}
	last := int64(-1)
	_ = p.t.Call(func() { last = p.t.dedup.LastSequenceID(p.name) })
	return producerSuccessCmd(rid, p.name, withSchemaVersion(p.schemaVersion), withLastSequenceID(last))
}

// Close takes p off its topic for CLOSE_PRODUCER and waits until it is.
func (p *Producer) Close() { _ = p.t.Call(func() { p.t.producerGone(p) }) }

// Detach takes p off its topic after its connection closed, without
// waiting.
func (p *Producer) Detach() { p.t.removeProducer(p) }
