package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Non-persistent messages in flight per connection
// (Gates.MaxConcurrentNonPersistentMessagePerConnection), as Pulsar's
// ServerCnx counts them: a SEND to a non-persistent topic counts from when
// the connection reads it until its topic has published it; one that
// arrives while more than the limit are in flight is dropped, answered
// with a receipt of message id -1:-1 in its turn on the topic (so receipts
// stay in sequence order) and counted in the publisher's msgDropRate.

// NpDropID is the message id of a dropped non-persistent message's
// receipt (Pulsar's -1:-1).
var npDropID = ledger.Position{Ledger: -1, Entry: -1}

// publisherDropRate is the drop rate of producer p, made on first use;
// the rates of producers gone are pruned then. Topic goroutine.
func (np *npState) publisherDropRate(p *Producer) *Rate {
	if np.pubDrops == nil {
		np.pubDrops = map[*Producer]*Rate{}
	}
	r := np.pubDrops[p]
	if r == nil {
		for old := range np.pubDrops {
			if _, ok := p.t.producers[old]; !ok {
				delete(np.pubDrops, old)
			}
		}
		r = &Rate{Start: p.t.adm.openedAt}
		np.pubDrops[p] = r
	}
	return r
}

// publisherDropValue is the msgDropRate of the publisher named name in the
// stats, 0 when it dropped nothing. Topic goroutine.
func (t *Topic) publisherDropValue(name any) float64 {
	for p, r := range t.np.pubDrops {
		if p.name == name {
			if _, ok := t.producers[p]; ok {
				return r.Value(t.b.cfg.Clock.Now())
			}
		}
	}
	return 0
}
