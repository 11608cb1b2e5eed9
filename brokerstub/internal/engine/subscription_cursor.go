package engine

// Moving a subscription's cursor other than by a consumer's acks: the
// admin API's skip, expiry and reset, and the TTL and retention sweeps.

import "github.com/pulsargo/sdk/brokerstub/internal/ledger"

// AckEntry acknowledges the whole entry at p for the subscription, as an
// admin skip or expiry does, and forgets any delivery of it.
func (s *Subscription) AckEntry(p ledger.Position) {
	e, ok := s.T.Led.Get(p)
	if !ok {
		return
	}
	s.Cur.AckIndividual(p, nil, int(s.T.info(e).numMessages))
	for _, cs := range s.Consumers {
		s.Release(cs, p)
	}
	s.Replay.Remove(p)
	delete(s.redeliveries, p)
}

// AckThrough acknowledges every entry up to and including p.
func (s *Subscription) AckThrough(p ledger.Position) {
	for {
		next, ok := s.Cur.NextUnacked(s.Cur.MarkDelete())
		if !ok || p.Less(next) {
			break
		}
		s.AckEntry(next)
	}
	s.Persist(false)
	s.Dispatch()
}

// RewindTo resets the subscription to pos like a seek: consumers are
// disconnected and reconnect to read from there.
func (s *Subscription) RewindTo(pos ledger.Position) {
	s.DisconnectAll(true)
	if s.T.Subs[s.Name] == nil { // a non-durable one went with its consumers
		return
	}
	s.Reset(pos, nil)
	s.Persist(false)
}
