package brokerstub

import (
	"hash/crc32"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// dispatchAll pushes what it can on every subscription of the topic.
func (t *topic) dispatchAll() {
	for _, s := range t.subs {
		s.dispatch()
	}
}

// dispatch delivers entries to consumers while some consumer can take one:
// entries waiting for redelivery first, in position order, then entries not
// read yet. It stops at the first entry that no consumer can take now, so
// that per-consumer order is kept.
func (s *subscription) dispatch() {
	if len(s.consumers) == 0 {
		return
	}
	for {
		pos, replayed, ok := s.nextCandidate()
		if !ok {
			return
		}
		e, ok := s.t.led.Get(pos)
		if !ok {
			s.removeReplay(pos)
			continue
		}
		in := s.t.info(e)
		cs := s.pick(in)
		if cs == nil {
			return
		}
		if replayed {
			s.removeReplay(pos)
		} else {
			s.readPos = pos
		}
		s.deliver(cs, e, in)
	}
}

// nextCandidate returns the next position to dispatch: the first replay
// position that is still unacknowledged, else the first unacknowledged entry
// after readPos.
func (s *subscription) nextCandidate() (ledger.Position, bool, bool) {
	for len(s.replay) > 0 {
		p := s.replay[0]
		if !s.cur.IsAcked(p) {
			return p, true, true
		}
		s.replay = s.replay[1:]
	}
	p := s.readPos
	for {
		next, ok := s.t.led.Next(p)
		if !ok {
			return ledger.Position{}, false, false
		}
		if !s.cur.IsAcked(next) {
			return next, false, true
		}
		s.readPos = next
		p = next
	}
}

// pick chooses the consumer for an entry by subscription type, or nil when
// the consumer it must go to has no permits.
func (s *subscription) pick(in *entryInfo) *consumer {
	switch s.typ {
	case proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Failover:
		if s.active != nil && s.active.permits > 0 {
			return s.active
		}
		return nil
	case proto.CommandSubscribe_Key_Shared:
		cs := s.consumers[crc32.ChecksumIEEE(in.key)%uint32(len(s.consumers))]
		if cs.permits > 0 {
			return cs
		}
		return nil
	}
	// Shared: every chunk of a chunked message goes where its first chunk
	// went, as Pulsar's SharedConsumerAssignor does.
	if in.uuid != "" && in.chunkID > 0 {
		if owner, ok := s.chunkOwner[in.uuid]; ok {
			if owner.permits > 0 {
				return owner
			}
			return nil
		}
	}
	for i := range s.consumers {
		cs := s.consumers[(s.next+i)%len(s.consumers)]
		if cs.permits > 0 {
			s.next = (s.next + i + 1) % len(s.consumers)
			if in.uuid != "" {
				if in.chunkID == in.numChunks-1 {
					delete(s.chunkOwner, in.uuid)
				} else {
					s.chunkOwner[in.uuid] = cs
				}
			}
			return cs
		}
	}
	return nil
}

// deliver sends the entry to cs, with the ack set of its batch when part of
// it is acknowledged, and charges cs's permits for the messages it holds.
func (s *subscription) deliver(cs *consumer, e ledger.Entry, in *entryInfo) {
	if in.uuid != "" && in.chunkID == in.numChunks-1 {
		delete(s.chunkOwner, in.uuid)
	}
	var ackSet []int64
	count := int64(in.numMessages)
	if !s.t.b.opts.DisableBatchIndexAck && in.numMessages > 1 {
		ackSet = s.cur.AckSet(e.Pos)
		count = int64(s.cur.UnackedInEntry(e.Pos, int(in.numMessages)))
	}
	cs.permits -= count
	cs.pending[e.Pos] = in.numMessages

	id, l, en := cs.id, uint64(e.Pos.Ledger), uint64(e.Pos.Entry)
	part := int32(s.t.name.partition)
	msg := &proto.CommandMessage{
		ConsumerId: &id,
		MessageId:  &proto.MessageIdData{LedgerId: &l, EntryId: &en, Partition: &part},
		AckSet:     ackSet,
	}
	if n := s.redeliveries[e.Pos]; n > 0 {
		msg.RedeliveryCount = &n
	}
	if cs.epoch > 0 {
		ep := cs.epoch
		msg.ConsumerEpoch = &ep
	}
	cs.c.writeMessage(&proto.BaseCommand{Type: proto.BaseCommand_MESSAGE.Enum(), Message: msg}, e.Meta, e.Payload)
}
