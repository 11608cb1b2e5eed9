package engine

import "github.com/pulsargo/sdk/internal/proto"

// Ack applies an individual or cumulative ack to the cursor and drops what
// became fully acknowledged from the consumers' pending sets. cs is nil for
// the acks of a committed transaction (txn_ack.go).
func (s *Subscription) Ack(cs *Consumer, m *proto.CommandAck) (proto.ServerError, string) {
	cumulative := m.GetAckType() == proto.CommandAck_Cumulative
	if cumulative && (s.typ == proto.CommandSubscribe_Shared || s.typ == proto.CommandSubscribe_Key_Shared) {
		// As Pulsar's Consumer.messageAcked: ignored (clients refuse to send
		// it), and a requested receipt reports success.
		s.t.b.log.Warn("Received cumulative ack on shared subscription, ignoring",
			"topic", s.t.name.Full, "sub", s.name, "consumer", cs.id)
		return 0, ""
	}
	for _, id := range m.GetMessageId() {
		pos := posOf(id)
		e, ok := s.t.Led.Get(pos)
		if !ok {
			continue
		}
		batch := int(s.t.info(e).numMessages)
		ackSet := id.GetAckSet()
		if len(ackSet) > 0 && s.t.b.cfg.DisableBatchIndexAck {
			// As Pulsar with batch-index acks off: an ack of part of a batch
			// acknowledges nothing of it (individual) or only what precedes
			// it (cumulative); the whole batch is redelivered, never lost.
			if !cumulative {
				continue
			}
			prev, ok := s.t.Led.Prev(pos)
			if !ok {
				continue
			}
			pos, ackSet = prev, nil
			if pe, ok := s.t.Led.Get(pos); ok {
				batch = int(s.t.info(pe).numMessages)
			}
		}
		if cumulative {
			s.Cur.AckCumulative(pos, ackSet, batch)
			md := s.Cur.MarkDelete()
			for _, other := range s.Consumers {
				for p := range other.pending {
					if !md.Less(p) {
						s.Release(other, p)
					}
				}
			}
			continue
		}
		s.Cur.AckIndividual(pos, ackSet, batch)
		if s.Cur.IsAcked(pos) {
			// The entry may be held by another consumer of the subscription
			// (acknowledged by id after a reconnect): Pulsar releases it
			// from whichever consumer holds it.
			if cs == nil || !s.Release(cs, pos) {
				for _, other := range s.Consumers {
					if s.Release(other, pos) {
						break
					}
				}
			}
			s.replay.Remove(pos)
			delete(s.redeliveries, pos)
		}
	}
	return 0, ""
}
