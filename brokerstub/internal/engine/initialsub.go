package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/cursor"
	"github.com/pulsargo/sdk/internal/proto"
)

// createInitialSubscription creates the durable subscription a PRODUCER
// names in initial_subscription_name (dead-letter producers use it) when
// the topic has none of that name, before the producer is admitted — so it
// exists before the producer's first message is written. As Pulsar's
// ServerCnx.handleProducer, it starts at the earliest position: it gets
// every message of the topic, those written before too. It runs on the
// topic goroutine.
func (t *Topic) createInitialSubscription(m *proto.CommandProducer) Admission {
	name := m.GetInitialSubscriptionName()
	if name == "" || t.Subs[name] != nil {
		return Admission{}
	}
	cur := cursor.New(beforeFirst, t.Led, t.cursorOptions())
	s := t.newSubscription(name, true, proto.CommandSubscribe_Exclusive, cur)
	t.Subs[name] = s
	s.save(cur.PersistedBytes())
	return Admission{}
}
