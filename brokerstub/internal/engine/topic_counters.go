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
	Terminated bool
	In, Out    counter
	Producers  map[*Producer]*clientInfo
	consumers  map[*Consumer]*clientInfo
	subs       map[string]*counter
	endSent    map[*Consumer]bool
	stopQuota  func() bool // the periodic backlog quota check
	openedAt   time.Time   // when the topic was loaded
}

// counter counts messages and bytes.
type counter struct{ Msgs, Bytes int64 }

// clientInfo is a producer's or consumer's connection facts and counters.
type clientInfo struct {
	counter
	Address, clientVersion string
	since                  time.Time
	metadata               map[string]string
	lastFlow               int64 // Unix ms of the last FLOW (consumers)
}

// NoteProducer records a producer that attached. Topic goroutine.
func (t *Topic) NoteProducer(p *Producer, m *proto.CommandProducer) {
	if t.Adm.Producers == nil {
		t.Adm.Producers = map[*Producer]*clientInfo{}
	}
	t.Adm.Producers[p] = t.newClientInfo(p.Peer, m.GetMetadata())
}

// NoteConsumer records a consumer that attached. Topic goroutine.
func (t *Topic) NoteConsumer(cs *Consumer, m *proto.CommandSubscribe) {
	if t.Adm.consumers == nil {
		t.Adm.consumers = map[*Consumer]*clientInfo{}
	}
	t.Adm.consumers[cs] = t.newClientInfo(cs.Peer, m.GetMetadata())
}

// NoteFlow records when a consumer last asked for messages. Topic
// goroutine.
func (t *Topic) NoteFlow(cs *Consumer) {
	if ci := t.Adm.consumers[cs]; ci != nil {
		ci.lastFlow = t.B.Cfg.Clock.Now().UnixMilli()
	}
}

func (t *Topic) newClientInfo(pr peer, md []*proto.KeyValue) *clientInfo {
	return &clientInfo{Address: pr.RemoteAddr().String(), clientVersion: pr.Version(),
		since: t.B.Cfg.Clock.Now(), metadata: KvMap(md)}
}

func KvMap(kvs []*proto.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}

// CountIn counts a stored entry of num messages. Topic goroutine.
func (t *Topic) CountIn(p *Producer, num int32, size int) {
	n := int64(max(num, 1))
	t.Adm.In.Msgs += n
	t.Adm.In.Bytes += int64(size)
	if pi := t.Adm.Producers[p]; pi != nil {
		pi.Msgs += n
		pi.Bytes += int64(size)
	}
}

// countOut counts messages dispatched to cs. Topic goroutine.
func (s *Subscription) countOut(cs *Consumer, n int64, size int) {
	a := &s.T.Adm
	a.Out.Msgs += n
	a.Out.Bytes += int64(size)
	if a.subs == nil {
		a.subs = map[string]*counter{}
	}
	sc := a.subs[s.Name]
	if sc == nil {
		sc = &counter{}
		a.subs[s.Name] = sc
	}
	sc.Msgs += n
	sc.Bytes += int64(size)
	if ci := a.consumers[cs]; ci != nil {
		ci.Msgs += n
		ci.Bytes += int64(size)
	}
}

// Prune forgets producers and consumers that left.
func (t *Topic) Prune() {
	for p := range t.Adm.Producers {
		if _, ok := t.Producers[p]; !ok {
			delete(t.Adm.Producers, p)
		}
	}
	for cs := range t.Adm.consumers {
		if cs.Closed {
			delete(t.Adm.consumers, cs)
			delete(t.Adm.endSent, cs)
		}
	}
}

// StorageSize is the bytes the topic's entries hold.
func (t *Topic) StorageSize() int64 {
	var n int64
	for _, s := range t.Led.Segments() {
		n += s.Size
	}
	return n
}

// BacklogOf is the subscription's backlog in entries and bytes.
func (s *Subscription) BacklogOf() (entries, bytes int64) {
	last, ok := s.T.Led.Last()
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
		if e, ok := s.T.Led.Get(next); ok {
			bytes += int64(len(e.Payload))
		}
		p = next
	}
	return entries, bytes
}
