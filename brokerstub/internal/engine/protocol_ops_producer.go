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
	return &Producer{Id: m.GetProducerId(), Name: m.GetProducerName(), Peer: pr, T: t,
		Mode: m.GetProducerAccessMode(), SchemaVersion: version}
}

// ID is the producer's id on its connection.
func (p *Producer) ID() uint64 { return p.Id }

// Do queues f on the goroutine of the producer's topic; it reports false
// if the topic has stopped.
func (p *Producer) Do(f func()) bool { return p.T.Do(f) }

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
		if code, reason := t.RefuseProducerLimit(); reason != "" {
			adm = Admission{Code: code, Msg: reason}
			return
		}
		if code, reason := t.RefuseSameAddressProducer(p.Peer); reason != "" {
			adm = Admission{Code: code, Msg: reason} // gates.go
			return
		}
		if code, reason := t.RefuseProducer(); reason != "" {
			adm = Admission{Code: code, Msg: reason}
			return
		}
		if t.Np == nil {
			// A non-persistent topic keeps no subscription without a
			// consumer: Pulsar ignores initial_subscription_name there.
			adm = t.CreateInitialSubscription(m)
		}
		if adm.Msg == "" {
			adm = t.Admit(p, rid, m)
		}
		if adm.Msg == "" {
			// Registered on the topic goroutine, so that fencing or
			// admission (access.go) never races with it.
			register()
			if !adm.Waiting {
				t.NoteProducer(p, m)
				last = t.Dedup.LastSequenceID(p.Name)
			}
		}
		if adm.Waiting {
			// Queued (WaitForExclusive): answered again, ready, when
			// admitted; this answer goes first.
			p.Peer.Send(ProducerSuccessCmd(rid, p.Name, NotReady, WithSchemaVersion(p.SchemaVersion)))
		}
	}); err != nil {
		return nil, err
	}
	switch {
	case adm.Msg != "":
		return ErrorCmd(rid, adm.Code, adm.Msg), nil
	case adm.Waiting:
		return nil, nil
	}
	return ProducerSuccessCmd(rid, p.Name, WithEpoch(adm.Epoch), WithSchemaVersion(p.SchemaVersion), WithLastSequenceID(last)), nil
}

// AnswerRetry is the answer to a PRODUCER request rid for p's id while p
// is attached: PRODUCER_SUCCESS again, or ServiceNotReady while p waits
// for exclusive access, as Pulsar answers.
func (p *Producer) AnswerRetry(rid uint64) *proto.BaseCommand {
	if p.Waiting.Load() {
		// As Pulsar: the first request is still being processed.
		return ErrorCmd(rid, proto.ServerError_ServiceNotReady, "Producer is already present on the connection")
	}
	last := int64(-1)
	_ = p.T.Call(func() { last = p.T.Dedup.LastSequenceID(p.Name) })
	return ProducerSuccessCmd(rid, p.Name, WithSchemaVersion(p.SchemaVersion), WithLastSequenceID(last))
}

// Close takes p off its topic for CLOSE_PRODUCER and waits until it is.
func (p *Producer) Close() { _ = p.T.Call(func() { p.T.ProducerGone(p) }) }

// Detach takes p off its topic after its connection closed, without
// waiting.
func (p *Producer) Detach() { p.T.RemoveProducer(p) }
