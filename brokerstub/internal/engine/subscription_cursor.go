package engine

// Moving a subscription's cursor other than by a consumer's acks: the
// admin API's skip, expiry and reset, and the TTL and retention sweeps.

import "github.com/pulsargo/sdk/brokerstub/internal/ledger"

// ackEntry acknowledges the whole entry at p for the subscription, as an
// admin skip or expiry does, and forgets any delivery of it.
func (s *Subscription) ackEntry(p ledger.Position) {
	e, ok := s.t.Led.Get(p)
	if !ok {
		return
	}
	s.Cur.AckIndividual(p, nil, int(s.t.info(e).numMessages))
	for _, cs := range s.Consumers {
		s.Release(cs, p)
	}
	s.replay.Remove(p)
	delete(s.redeliveries, p)
}

// AckThrough acknowledges every entry up to and including p.
func (s *Subscription) AckThrough(p ledger.Position) {
	for {
		next, ok := s.Cur.NextUnacked(s.Cur.MarkDelete())
		if !ok || p.Less(next) {
			break
		}
		s.ackEntry(next)
	}
	s.persist(false)
	s.Dispatch()
}

// rewindTo resets the subscription to pos like a seek: consumers are
// disconnected and reconnect to read from there.
func (s *Subscription) rewindTo(pos ledger.Position) {
	s.disconnectAll(true)
	if s.t.Subs[s.name] == nil { // a non-durable one went with its consumers
		return
	}
	s.Reset(pos, nil)
	s.persist(false)
}
