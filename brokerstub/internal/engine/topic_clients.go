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
	id   uint64
	name string
	peer peer
	t    *Topic
	mode proto.ProducerAccessMode
	// waiting is set while a WaitForExclusive producer is queued (access.go).
	waiting atomic.Bool
	// schemaVersion is the version of the producer's schema, empty without one.
	schemaVersion []byte
	// receipt is the SEND_RECEIPT its topic's goroutine fills in and
	// encodes for every stored entry (protocol_ops_send.go).
	receipt receiptScratch
}

// Subscribe attaches cs to its subscription, creating the subscription if
// needed, and answers the client. It reports whether cs was attached.
func (t *Topic) Subscribe(cs *Consumer, m *proto.CommandSubscribe) bool {
	rid := m.GetRequestId()
	if t.np != nil && m.GetReadCompacted() {
		cs.peer.Send(ErrorCmd(rid, proto.ServerError_NotAllowedError, "readCompacted only valid on persistent topics"))
		return false
	}
	if code, msg := refuseReadCompacted(m); msg != "" {
		cs.peer.Send(ErrorCmd(rid, code, msg)) // compaction_dispatch.go
		return false
	}
	cs.readCompacted = m.GetReadCompacted()
	if msg := t.refuseSubscribeRate(cs); msg != "" {
		cs.peer.Send(ErrorCmd(rid, proto.ServerError_NotAllowedError, msg)) // ratelimit_subscribe.go
		return false
	}
	s := t.Subs[m.GetSubscription()]
	if code, msg := t.refuseSubscribe(s, m); msg != "" {
		cs.peer.Send(ErrorCmd(rid, code, msg)) // gates.go
		return false
	}
	if code, msg := t.refuseConsumerLimit(s, m.GetDurable()); msg != "" {
		cs.peer.Send(ErrorCmd(rid, code, msg)) // limits.go
		return false
	}
	if code, msg := t.refuseSameAddressConsumer(cs.peer); msg != "" {
		cs.peer.Send(ErrorCmd(rid, code, msg)) // gates.go
		return false
	}
	if s == nil {
		start := t.startPosition(m)
		cur := cursor.New(start, t.Led, t.cursorOptions())
		s = t.newSubscription(m.GetSubscription(), m.GetDurable(), m.GetSubType(), cur)
		t.Subs[s.name] = s
		if s.durable {
			// A new durable subscription exists from now on, across restarts.
			s.save(cur.PersistedBytes())
		}
	}
	cs.sub = s
	if code, msg, ok := s.addConsumer(cs); !ok {
		if len(s.Consumers) == 0 && !s.durable {
			delete(t.Subs, s.name)
		}
		cs.peer.Send(ErrorCmd(rid, code, msg))
		return false
	}
	cs.peer.Send(SuccessCmd(rid))
	s.Dispatch()
	return true
}

// removeConsumer detaches cs after its connection closed.
func (t *Topic) removeConsumer(cs *Consumer) {
	t.Do(func() { cs.sub.removeConsumer(cs) })
}

// closeClients tells every producer and consumer of the topic to go away
// (they reconnect, as after a topic moves) and detaches them.
func (t *Topic) closeClients() {
	t.dropWaiting()
	t.closeProducers()
	for _, s := range t.Subs {
		s.disconnectAll(false)
	}
}

// disconnectAll closes every consumer of the subscription on the client side
// (CloseConsumer) and detaches it, as Pulsar does on seek and unload. A
// non-durable subscription (a reader's) goes away with its consumers, except
// for a cursor reset (forReset): Pulsar then keeps the reset cursor, and the
// reader that reconnects attaches to it whatever start id it sends (the
// official Go client resends its original one after SeekByTime).
func (s *Subscription) disconnectAll(forReset bool) {
	for _, cs := range s.Consumers {
		cs.closed = true
		cs.peer.Send(closeConsumerCmd(cs.id))
		cs.peer.DropConsumer(cs.id)
		s.requeue(cs, nil)
	}
	s.Consumers = nil
	s.active = nil
	if s.ks != nil {
		s.ks.Reset()
		clear(s.ksByID)
		s.rewind()
	}
	if !s.durable && !forReset {
		delete(s.t.Subs, s.name)
	}
}

// addProducer attaches p, naming it if the client gave no name; it reports
// false when another producer already has p's name.
func (t *Topic) addProducer(p *Producer) bool {
	if p.name == "" {
		p.name = fmt.Sprintf("brokerstub-%d-%d", p.peer.ConnID(), p.id)
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
func (t *Topic) removeProducer(p *Producer) {
	t.Do(func() { t.producerGone(p) })
}

// closeProducers sends CloseProducer to every producer and detaches them;
// the clients reconnect. Topic goroutine.
func (t *Topic) closeProducers() {
	for p := range t.producers {
		p.peer.Send(closeProducerCmd(p.id))
		p.peer.DropProducer(p)
	}
	t.producers = map[*Producer]struct{}{}
}
