package brokerstub

// A topic's counters and who is connected to it, kept by the topic goroutine
// as messages come in and go out; the admin API's stats read them.

import (
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

// topicAdmin is what the admin API needs from a topic beyond its dispatch
// state: counters, who connected when, and the terminated flag. It is a
// field of topic, owned by the topic goroutine like the rest of it.
type topicAdmin struct {
	terminated bool
	in, out    counter
	producers  map[*producer]*clientInfo
	consumers  map[*consumer]*clientInfo
	subs       map[string]*counter
	endSent    map[*consumer]bool
	stopQuota  func() bool // the periodic backlog quota check
	openedAt   time.Time   // when the topic was loaded
}

// counter counts messages and bytes.
type counter struct{ msgs, bytes int64 }

// clientInfo is a producer's or consumer's connection facts and counters.
type clientInfo struct {
	counter
	address, clientVersion string
	since                  time.Time
	metadata               map[string]string
	lastFlow               int64 // Unix ms of the last FLOW (consumers)
}

// noteProducer records a producer that attached. Topic goroutine.
func (t *topic) noteProducer(p *producer, m *proto.CommandProducer) {
	if t.adm.producers == nil {
		t.adm.producers = map[*producer]*clientInfo{}
	}
	t.adm.producers[p] = t.newClientInfo(p.peer, m.GetMetadata())
}

// noteConsumer records a consumer that attached. Topic goroutine.
func (t *topic) noteConsumer(cs *consumer, m *proto.CommandSubscribe) {
	if t.adm.consumers == nil {
		t.adm.consumers = map[*consumer]*clientInfo{}
	}
	t.adm.consumers[cs] = t.newClientInfo(cs.peer, m.GetMetadata())
}

// noteFlow records when a consumer last asked for messages. Topic
// goroutine.
func (t *topic) noteFlow(cs *consumer) {
	if ci := t.adm.consumers[cs]; ci != nil {
		ci.lastFlow = t.b.cfg.Clock.Now().UnixMilli()
	}
}

func (t *topic) newClientInfo(pr peer, md []*proto.KeyValue) *clientInfo {
	return &clientInfo{address: pr.remoteAddr().String(), clientVersion: pr.version(),
		since: t.b.cfg.Clock.Now(), metadata: kvMap(md)}
}

func kvMap(kvs []*proto.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}

// countIn counts a stored entry of num messages. Topic goroutine.
func (t *topic) countIn(p *producer, num int32, size int) {
	n := int64(max(num, 1))
	t.adm.in.msgs += n
	t.adm.in.bytes += int64(size)
	if pi := t.adm.producers[p]; pi != nil {
		pi.msgs += n
		pi.bytes += int64(size)
	}
}

// countOut counts messages dispatched to cs. Topic goroutine.
func (s *subscription) countOut(cs *consumer, n int64, size int) {
	a := &s.t.adm
	a.out.msgs += n
	a.out.bytes += int64(size)
	if a.subs == nil {
		a.subs = map[string]*counter{}
	}
	sc := a.subs[s.name]
	if sc == nil {
		sc = &counter{}
		a.subs[s.name] = sc
	}
	sc.msgs += n
	sc.bytes += int64(size)
	if ci := a.consumers[cs]; ci != nil {
		ci.msgs += n
		ci.bytes += int64(size)
	}
}

// prune forgets producers and consumers that left.
func (t *topic) prune() {
	for p := range t.adm.producers {
		if _, ok := t.producers[p]; !ok {
			delete(t.adm.producers, p)
		}
	}
	for cs := range t.adm.consumers {
		if cs.closed {
			delete(t.adm.consumers, cs)
			delete(t.adm.endSent, cs)
		}
	}
}

// storageSize is the bytes the topic's entries hold.
func (t *topic) storageSize() int64 {
	var n int64
	for _, s := range t.led.Segments() {
		n += s.Size
	}
	return n
}

// backlogOf is the subscription's backlog in entries and bytes.
func (s *subscription) backlogOf() (entries, bytes int64) {
	last, ok := s.t.led.Last()
	if !ok {
		return 0, 0
	}
	entries = int64(s.cur.Backlog(last))
	p := s.cur.MarkDelete()
	for range entries {
		next, ok := s.cur.NextUnacked(p)
		if !ok {
			break
		}
		if e, ok := s.t.led.Get(next); ok {
			bytes += int64(len(e.Payload))
		}
		p = next
	}
	return entries, bytes
}
