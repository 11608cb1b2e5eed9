package brokerstub

// Moving a subscription's cursor other than by a consumer's acks: the
// admin API's skip, expiry and reset, and the TTL and retention sweeps.

import "github.com/pulsargo/sdk/brokerstub/internal/ledger"

// ackEntry acknowledges the whole entry at p for the subscription, as an
// admin skip or expiry does, and forgets any delivery of it.
func (s *subscription) ackEntry(p ledger.Position) {
	e, ok := s.t.led.Get(p)
	if !ok {
		return
	}
	s.cur.AckIndividual(p, nil, int(s.t.info(e).numMessages))
	for _, cs := range s.consumers {
		s.release(cs, p)
	}
	s.replay.Remove(p)
	delete(s.redeliveries, p)
}

// ackThrough acknowledges every entry up to and including p.
func (s *subscription) ackThrough(p ledger.Position) {
	for {
		next, ok := s.cur.NextUnacked(s.cur.MarkDelete())
		if !ok || p.Less(next) {
			break
		}
		s.ackEntry(next)
	}
	s.persist(false)
	s.dispatch()
}

// rewindTo resets the subscription to pos like a seek: consumers are
// disconnected and reconnect to read from there.
func (s *subscription) rewindTo(pos ledger.Position) {
	s.disconnectAll(true)
	if s.t.subs[s.name] == nil { // a non-durable one went with its consumers
		return
	}
	s.reset(pos, nil)
	s.persist(false)
}
