package engine

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/internal/proto"
)

// This file holds producer access modes (PIP-68) as Pulsar's AbstractTopic
// does them: Shared producers coexist; an Exclusive producer is admitted
// only on a topic with no other producer (else ProducerFenced) and then
// keeps Shared ones out (ProducerBusy); ExclusiveWithFencing closes every
// other producer and fails every waiting one, then takes the topic;
// WaitForExclusive is answered PRODUCER_SUCCESS with producer_ready=false
// while another producer is attached and is admitted — answered again,
// ready — when the topic is free. Each exclusive admission moves the topic
// epoch (sent in PRODUCER_SUCCESS as topic_epoch) unless the producer brings
// its own; a producer whose epoch is older than the topic's is fenced.
//
// Unlike Pulsar 4.x, a waiting producer is also admitted when the last
// Shared producer leaves (Pulsar promotes waiters only when an exclusive
// producer leaves, so one queued behind Shared producers waits forever,
// and keeps new Shared producers out meanwhile).

// accessState is a topic's exclusive producer and its waiting queue. Owned
// by the topic goroutine.
type accessState struct {
	exclusive *Producer
	Waiting   []waiter
}

// waiter is a WaitForExclusive producer queued on a topic: the request its
// PRODUCER came with, to be answered when it is admitted.
type waiter struct {
	p   *Producer
	rid uint64
	req *uint64                // the topic_epoch it asked for, if any
	cmd *proto.CommandProducer // its PRODUCER, for the stats once admitted
}

// epochKeyPrefix starts the store key of a topic's epoch (followed by the
// topic's full name): it is kept in the broker's store, as Pulsar keeps it
// in the managed ledger's properties, so that it holds across Restart,
// Crash and, with a data dir, the process.
const epochKeyPrefix = "topic-epoch/"

// epoch returns the topic's epoch and whether it has one (none before its
// first exclusive producer). A store that cannot be read is logged and
// treated as no epoch.
func (t *Topic) epoch() (uint64, bool) {
	kv, ok := t.b.st.(store.MetaStore)
	if !ok {
		return 0, false
	}
	raw, found, err := kv.GetMeta(epochKeyPrefix + t.name.Full)
	if err != nil || !found {
		if err != nil {
			t.b.log.Error("read topic epoch", "topic", t.name.Full, "err", err)
		}
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		t.b.log.Error("stored topic epoch", "topic", t.name.Full, "value", string(raw), "err", err)
		return 0, false
	}
	return v, true
}

// setEpoch persists the topic's epoch; a store failure is logged.
func (t *Topic) setEpoch(v uint64) {
	kv, ok := t.b.st.(store.MetaStore)
	if !ok {
		return
	}
	if err := kv.PutMeta(epochKeyPrefix+t.name.Full, strconv.AppendUint(nil, v, 10)); err != nil {
		t.b.log.Error("persist topic epoch", "topic", t.name.Full, "err", err)
	}
}

// Admission is the topic's answer to a PRODUCER.
type Admission struct {
	code    proto.ServerError
	msg     string // "" when admitted or queued
	waiting bool   // queued: answer producer_ready=false now
	epoch   *uint64
}

func (t *Topic) accessOf() *accessState {
	if t.Access == nil {
		t.Access = &accessState{}
	}
	return t.Access
}

// admit decides on producer p, asked for by request rid with m; it runs on
// the topic goroutine.
func (t *Topic) admit(p *Producer, rid uint64, m *proto.CommandProducer) Admission {
	a := t.accessOf()
	if p.name == "" {
		// Named now, so that a queued producer's first answer has its name.
		p.name = fmt.Sprintf("brokerstub-%d-%d", p.peer.ConnID(), p.id)
	}
	cur, hasCur := t.epoch()
	req := m.TopicEpoch
	moved := func() (Admission, bool) {
		if req != nil && hasCur && *req < cur {
			return Admission{code: proto.ServerError_ProducerFenced, msg: fmt.Sprintf(
				"Topic epoch has already moved. Current epoch: %d, Producer epoch: %d", cur, *req)}, true
		}
		return Admission{}, false
	}
	busyName := func() string {
		if a.exclusive != nil {
			return a.exclusive.name
		}
		return "null"
	}
	switch p.mode {
	case proto.ProducerAccessMode_Shared:
		if a.exclusive != nil || len(a.Waiting) > 0 {
			return Admission{code: proto.ServerError_ProducerBusy, msg: "Topic has an existing exclusive producer: " + busyName()}
		}
		if !t.addProducer(p) {
			return t.nameTaken(p)
		}
		return Admission{epoch: t.epochPtr()}
	case proto.ProducerAccessMode_Exclusive:
		if a.exclusive != nil || len(a.Waiting) > 0 {
			return Admission{code: proto.ServerError_ProducerFenced, msg: "Topic has an existing exclusive producer: " + busyName()}
		}
		if len(t.producers) > 0 {
			return Admission{code: proto.ServerError_ProducerFenced, msg: "Topic has existing shared producers"}
		}
	case proto.ProducerAccessMode_ExclusiveWithFencing:
		if a.exclusive != nil || len(t.producers) > 0 {
			t.fenceAll()
		}
	case proto.ProducerAccessMode_WaitForExclusive:
		if a.exclusive != nil || len(t.producers) > 0 {
			a.Waiting = append(a.Waiting, waiter{p: p, rid: rid, req: req, cmd: m})
			p.waiting.Store(true)
			return Admission{waiting: true}
		}
	default:
		return Admission{code: proto.ServerError_UnknownError, msg: fmt.Sprintf("Invalid producer access mode: %s", p.mode)}
	}
	if adm, ok := moved(); ok {
		return adm
	}
	if !t.addProducer(p) {
		return t.nameTaken(p)
	}
	return Admission{epoch: t.takeExclusive(p, req)}
}

func (t *Topic) nameTaken(p *Producer) Admission {
	return Admission{code: proto.ServerError_ProducerBusy, msg: fmt.Sprintf("Producer with name '%s' is already connected to topic '%s'", p.name, t.name.Full)}
}

func (t *Topic) epochPtr() *uint64 {
	if e, ok := t.epoch(); ok {
		return &e
	}
	return nil
}

// takeExclusive makes p, attached already, the topic's exclusive producer
// and moves the topic epoch: to req when the producer brings one, else one
// past the current (0 for the first).
func (t *Topic) takeExclusive(p *Producer, req *uint64) *uint64 {
	t.accessOf().exclusive = p
	var next uint64
	if req != nil {
		next = *req
	} else if cur, ok := t.epoch(); ok {
		next = cur + 1
	}
	t.setEpoch(next)
	return &next
}

// fenceAll fails every waiting producer (ProducerFenced, "Fenced out") and
// closes every attached one, as an ExclusiveWithFencing producer does.
func (t *Topic) fenceAll() {
	a := t.accessOf()
	waiting := a.Waiting
	a.Waiting = nil
	for _, w := range waiting {
		w.p.peer.Send(ErrorCmd(w.rid, proto.ServerError_ProducerFenced, "Fenced out"))
		w.p.peer.DropProducer(w.p)
	}
	t.closeProducers()
	a.exclusive = nil
}

// producerGone detaches p (closed by its client, or its connection lost)
// from the topic or its waiting queue, and admits the next waiting producer
// when the topic is free.
func (t *Topic) producerGone(p *Producer) {
	delete(t.producers, p)
	t.dedup.producerLeft(p.name, t.b.cfg.Clock.Now()) // dedup_inactive.go
	t.life.lastActive = t.b.cfg.Clock.Now()           // inactive.go, as Pulsar's handleProducerRemoved
	a := t.Access
	if a == nil {
		return
	}
	a.Waiting = slices.DeleteFunc(a.Waiting, func(w waiter) bool { return w.p == p })
	if a.exclusive == p {
		a.exclusive = nil
	}
	t.admitWaiting()
}

// admitWaiting admits the first waiting producer once no producer is
// attached, answering its PRODUCER with producer_ready=true.
func (t *Topic) admitWaiting() {
	a := t.Access
	for a.exclusive == nil && len(t.producers) == 0 && len(a.Waiting) > 0 {
		w := a.Waiting[0]
		a.Waiting = a.Waiting[1:]
		cur, hasCur := t.epoch()
		if w.req != nil && hasCur && *w.req < cur {
			w.p.peer.Send(ErrorCmd(w.rid, proto.ServerError_ProducerFenced, fmt.Sprintf(
				"Topic epoch has already moved. Current epoch: %d, Producer epoch: %d", cur, *w.req)))
			w.p.peer.DropProducer(w.p)
			continue
		}
		if !t.addProducer(w.p) {
			adm := t.nameTaken(w.p)
			w.p.peer.Send(ErrorCmd(w.rid, adm.code, adm.msg))
			w.p.peer.DropProducer(w.p)
			continue
		}
		epoch := t.takeExclusive(w.p, w.req)
		w.p.waiting.Store(false)
		t.noteProducer(w.p, w.cmd)
		w.p.peer.Send(producerSuccessCmd(w.rid, w.p.name, withEpoch(epoch), withSchemaVersion(w.p.schemaVersion),
			withLastSequenceID(t.dedup.LastSequenceID(w.p.name))))
	}
}

// dropWaiting answers every waiting producer with ServiceNotReady (the
// topic is going away; clients retry) and empties the queue.
func (t *Topic) dropWaiting() {
	if t.Access == nil {
		return
	}
	for _, w := range t.Access.Waiting {
		w.p.peer.Send(ErrorCmd(w.rid, proto.ServerError_ServiceNotReady, "topic is being unloaded"))
		w.p.peer.DropProducer(w.p)
	}
	t.Access.Waiting = nil
	t.Access.exclusive = nil
}
