package brokerstub

import (
	"sync/atomic"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// Non-persistent messages in flight per connection
// (Gates.MaxConcurrentNonPersistentMessagePerConnection), as Pulsar's
// ServerCnx counts them: a SEND to a non-persistent topic counts from when
// the connection reads it until its topic has published it; one that
// arrives while more than the limit are in flight is dropped, answered
// with a receipt of message id -1:-1 in its turn on the topic (so receipts
// stay in sequence order) and counted in the publisher's msgDropRate.

// npDropID is the message id of a dropped non-persistent message's
// receipt (Pulsar's -1:-1).
var npDropID = ledger.Position{Ledger: -1, Entry: -1}

// connGate is what a connection keeps for the gates: the count of its
// non-persistent SENDs in flight (the read loop adds, topic goroutines
// take away) and whether its client announced supports_partial_producer
// (set by CONNECT, before any producer; admin_stats_publishers.go).
type connGate struct {
	npInFlight      atomic.Int64
	partialProducer bool
}

// dropNonPersistent reports whether the SEND m of p is dropped because the
// connection has too many non-persistent SENDs in flight; when it is not
// and the topic is non-persistent, it counts it in flight (npSent takes it
// back). Read loop.
func (c *conn) dropNonPersistent(p *producer, m *proto.CommandSend) (dropped, counted bool) {
	if p.t.np == nil {
		return false, false
	}
	limit := int64(max(c.b.opts.Gates.MaxConcurrentNonPersistentMessagePerConnection, 0))
	if c.gate.npInFlight.Load() <= limit {
		c.gate.npInFlight.Add(1)
		return false, true
	}
	t, id, seq, highest, num := p.t, p.id, m.GetSequenceId(), m.GetHighestSequenceId(), int64(max(m.GetNumMessages(), 1))
	if !t.do(func() {
		t.np.publisherDropRate(p).record(t.b.opts.Clock.Now(), num)
		c.write(t.receipt(id, seq, highest, npDropID))
	}) {
		c.write(sendError(id, seq, proto.ServerError_ServiceNotReady, "topic is being unloaded"))
	}
	return true, false
}

// npSent takes a non-persistent SEND out of the connection's count.
func (c *conn) npSent() { c.gate.npInFlight.Add(-1) }

// publisherDropRate is the drop rate of producer p, made on first use;
// the rates of producers gone are pruned then. Topic goroutine.
func (np *npState) publisherDropRate(p *producer) *rate {
	if np.pubDrops == nil {
		np.pubDrops = map[*producer]*rate{}
	}
	r := np.pubDrops[p]
	if r == nil {
		for old := range np.pubDrops {
			if _, ok := p.t.producers[old]; !ok {
				delete(np.pubDrops, old)
			}
		}
		r = &rate{start: p.t.adm.openedAt}
		np.pubDrops[p] = r
	}
	return r
}

// publisherDropValue is the msgDropRate of the publisher named name in the
// stats, 0 when it dropped nothing. Topic goroutine.
func (t *topic) publisherDropValue(name any) float64 {
	for p, r := range t.np.pubDrops {
		if p.name == name {
			if _, ok := t.producers[p]; ok {
				return r.value(t.b.opts.Clock.Now())
			}
		}
	}
	return 0
}
