package engine

import (
	"fmt"
	"sync/atomic"

	"github.com/pulsargo/sdk/brokerstub/internal/cursor"
	"github.com/pulsargo/sdk/internal/proto"
)

// Producer is a producer attached to a topic through a connection, its
// peer.
type Producer struct {
	Id   uint64
	Name string
	Peer peer
	T    *Topic
	Mode proto.ProducerAccessMode
	// Waiting is set while a WaitForExclusive producer is queued (access.go).
	Waiting atomic.Bool
	// SchemaVersion is the version of the producer's schema, empty without one.
	SchemaVersion []byte
	// Receipt is the SEND_RECEIPT its topic's goroutine fills in and
	// encodes for every stored entry (handle_send.go).
	Receipt receiptScratch
}

// Subscribe attaches cs to its subscription, creating the subscription if
// needed, and answers the client. It reports whether cs was attached.
func (t *Topic) Subscribe(cs *Consumer, m *proto.CommandSubscribe) bool {
	rid := m.GetRequestId()
	if t.Np != nil && m.GetReadCompacted() {
		cs.Peer.Send(ErrorCmd(rid, proto.ServerError_NotAllowedError, "readCompacted only valid on persistent topics"))
		return false
	}
	if code, msg := refuseReadCompacted(m); msg != "" {
		cs.Peer.Send(ErrorCmd(rid, code, msg)) // compaction_dispatch.go
		return false
	}
	cs.readCompacted = m.GetReadCompacted()
	if msg := t.refuseSubscribeRate(cs); msg != "" {
		cs.Peer.Send(ErrorCmd(rid, proto.ServerError_NotAllowedError, msg)) // ratelimit_subscribe.go
		return false
	}
	s := t.Subs[m.GetSubscription()]
	if code, msg := t.refuseSubscribe(s, m); msg != "" {
		cs.Peer.Send(ErrorCmd(rid, code, msg)) // gates.go
		return false
	}
	if code, msg := t.refuseConsumerLimit(s, m.GetDurable()); msg != "" {
		cs.Peer.Send(ErrorCmd(rid, code, msg)) // limits.go
		return false
	}
	if code, msg := t.refuseSameAddressConsumer(cs.Peer); msg != "" {
		cs.Peer.Send(ErrorCmd(rid, code, msg)) // gates.go
		return false
	}
	if s == nil {
		start := t.startPosition(m)
		cur := cursor.New(start, t.Led, t.cursorOptions())
		s = t.newSubscription(m.GetSubscription(), m.GetDurable(), m.GetSubType(), cur)
		t.Subs[s.Name] = s
		if s.Durable {
			// A new durable subscription exists from now on, across restarts.
			s.save(cur.PersistedBytes())
		}
	}
	cs.Sub = s
	if code, msg, ok := s.addConsumer(cs); !ok {
		if len(s.Consumers) == 0 && !s.Durable {
			delete(t.Subs, s.Name)
		}
		cs.Peer.Send(ErrorCmd(rid, code, msg))
		return false
	}
	cs.Peer.Send(SuccessCmd(rid))
	s.Dispatch()
	return true
}

// RemoveConsumer detaches cs after its connection closed.
func (t *Topic) RemoveConsumer(cs *Consumer) {
	t.Do(func() { cs.Sub.RemoveConsumer(cs) })
}

// closeClients tells every producer and consumer of the topic to go away
// (they reconnect, as after a topic moves) and detaches them.
func (t *Topic) closeClients() {
	t.dropWaiting()
	t.closeProducers()
	for _, s := range t.Subs {
		s.DisconnectAll(false)
	}
}

// DisconnectAll closes every consumer of the subscription on the client side
// (CloseConsumer) and detaches it, as Pulsar does on seek and unload. A
// non-durable subscription (a reader's) goes away with its consumers, except
// for a cursor reset (forReset): Pulsar then keeps the reset cursor, and the
// reader that reconnects attaches to it whatever start id it sends (the
// official Go client resends its original one after SeekByTime).
func (s *Subscription) DisconnectAll(forReset bool) {
	for _, cs := range s.Consumers {
		cs.Closed = true
		cs.Peer.Send(CloseConsumerCmd(cs.Id))
		cs.Peer.DropConsumer(cs.Id)
		s.Requeue(cs, nil)
	}
	s.Consumers = nil
	s.active = nil
	if s.Ks != nil {
		s.Ks.Reset()
		clear(s.ksByID)
		s.rewind()
	}
	if !s.Durable && !forReset {
		delete(s.T.Subs, s.Name)
	}
}

// addProducer attaches p, naming it if the client gave no name; it reports
// false when another producer already has p's name.
func (t *Topic) addProducer(p *Producer) bool {
	if p.Name == "" {
		p.Name = fmt.Sprintf("brokerstub-%d-%d", p.Peer.ConnID(), p.Id)
	}
	for q := range t.Producers {
		if q.Name == p.Name {
			return false
		}
	}
	t.Producers[p] = struct{}{}
	t.Dedup.producerJoined(p.Name) // dedup_inactive.go
	return true
}

// RemoveProducer detaches p after its connection closed.
func (t *Topic) RemoveProducer(p *Producer) {
	t.Do(func() { t.ProducerGone(p) })
}

// closeProducers sends CloseProducer to every producer and detaches them;
// the clients reconnect. Topic goroutine.
func (t *Topic) closeProducers() {
	for p := range t.Producers {
		p.Peer.Send(closeProducerCmd(p.Id))
		p.Peer.DropProducer(p)
	}
	t.Producers = map[*Producer]struct{}{}
}
