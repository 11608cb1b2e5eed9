package engine

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
	producers  map[*Producer]*clientInfo
	consumers  map[*Consumer]*clientInfo
	subs       map[string]*counter
	endSent    map[*Consumer]bool
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
func (t *Topic) noteProducer(p *Producer, m *proto.CommandProducer) {
	if t.adm.producers == nil {
		t.adm.producers = map[*Producer]*clientInfo{}
	}
	t.adm.producers[p] = t.newClientInfo(p.peer, m.GetMetadata())
}

// noteConsumer records a consumer that attached. Topic goroutine.
func (t *Topic) noteConsumer(cs *Consumer, m *proto.CommandSubscribe) {
	if t.adm.consumers == nil {
		t.adm.consumers = map[*Consumer]*clientInfo{}
	}
	t.adm.consumers[cs] = t.newClientInfo(cs.peer, m.GetMetadata())
}

// noteFlow records when a consumer last asked for messages. Topic
// goroutine.
func (t *Topic) noteFlow(cs *Consumer) {
	if ci := t.adm.consumers[cs]; ci != nil {
		ci.lastFlow = t.b.cfg.Clock.Now().UnixMilli()
	}
}

func (t *Topic) newClientInfo(pr peer, md []*proto.KeyValue) *clientInfo {
	return &clientInfo{address: pr.RemoteAddr().String(), clientVersion: pr.Version(),
		since: t.b.cfg.Clock.Now(), metadata: KvMap(md)}
}

func KvMap(kvs []*proto.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}

// countIn counts a stored entry of num messages. Topic goroutine.
func (t *Topic) countIn(p *Producer, num int32, size int) {
	n := int64(max(num, 1))
	t.adm.in.msgs += n
	t.adm.in.bytes += int64(size)
	if pi := t.adm.producers[p]; pi != nil {
		pi.msgs += n
		pi.bytes += int64(size)
	}
}

// countOut counts messages dispatched to cs. Topic goroutine.
func (s *Subscription) countOut(cs *Consumer, n int64, size int) {
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

// Prune forgets producers and consumers that left.
func (t *Topic) Prune() {
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
func (t *Topic) storageSize() int64 {
	var n int64
	for _, s := range t.Led.Segments() {
		n += s.Size
	}
	return n
}

// backlogOf is the subscription's backlog in entries and bytes.
func (s *Subscription) backlogOf() (entries, bytes int64) {
	last, ok := s.t.Led.Last()
	if !ok {
		return 0, 0
	}
	entries = int64(s.Cur.Backlog(last))
	p := s.Cur.MarkDelete()
	for range entries {
		next, ok := s.Cur.NextUnacked(p)
		if !ok {
			break
		}
		if e, ok := s.t.Led.Get(next); ok {
			bytes += int64(len(e.Payload))
		}
		p = next
	}
	return entries, bytes
}
