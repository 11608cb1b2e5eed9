package brokerstub

import (
	"fmt"
	"slices"
	"time"

	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// The soak's operations: produce, subscribe, leave or crash, grant
// permits, acknowledge (whole or part of a batch), negatively acknowledge.

func (s *soak) produce(p *soakProducer) {
	key := fmt.Sprint("k", s.rng.IntN(soakKeys))
	md := &proto.MessageMetadata{}
	var payload []byte
	e := &soakEntry{key: key, n: 1}
	switch r := s.rng.IntN(100); {
	case p.chunk != nil: // the next chunk of the message in progress
		c := p.chunk
		e = &soakEntry{key: c.key, n: 1, uuid: c.uuid, chunkID: c.chunkID + 1, numChunks: c.numChunks}
		p.chunk = e
		if e.chunkID == e.numChunks-1 {
			p.chunk = nil
		}
	case r < 20: // a key-based batch
		e.n = int32(2 + s.rng.IntN(4))
		for i := range e.n {
			var err error
			payload, err = wire.AppendBatchEntry(payload, &proto.SingleMessageMetadata{PartitionKey: &key}, fmt.Appendf(nil, "%d", i))
			require.NoError(s.t, err)
		}
		md.NumMessagesInBatch = gproto.Int32(e.n)
	case r < 30: // the first chunk of a chunked message
		e.uuid = fmt.Sprintf("%s-%d", p.name, p.seq)
		e.numChunks = int32(2 + s.rng.IntN(3))
		p.chunk = e
	case r < 40: // a delayed message, due in 2 to 5 s
		e.delayed = true
		e.dueAt = s.clock.Now().Add(time.Duration(2+s.rng.IntN(4)) * time.Second).UnixMilli()
		md.DeliverAtTime = &e.dueAt
	}
	if e.uuid != "" {
		md.Uuid, md.ChunkId, md.NumChunksFromMsg, md.TotalChunkMsgSize = &e.uuid, &e.chunkID, &e.numChunks, gproto.Int32(e.numChunks)
	}
	if payload == nil {
		payload = []byte("x")
	}
	seq := p.seq
	p.seq++
	md.ProducerName, md.SequenceId, md.PublishTime, md.PartitionKey = &p.name, &seq, gproto.Uint64(1), &e.key
	s.bySeq[[2]uint64{p.id, seq}] = e
	if e.uuid == "" || e.chunkID == e.numChunks-1 {
		s.messages += int(e.n)
	}
	s.handle(s.prodConn, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: &p.id, SequenceId: &seq, NumMessages: &e.n}}, md, payload)
}

func (s *soak) subscribe() {
	c := &soakConsumer{c: s.newConn(), slot: -1, held: map[ledger.Position][]int32{}}
	name := soakNames[s.rng.IntN(len(soakNames))]
	s.instSeq++
	c.label = fmt.Sprintf("%s#%d", name, s.instSeq)
	var meta *proto.KeySharedMeta
	switch {
	case s.cfg.sticky:
		for i, used := range s.slots {
			if !used {
				c.slot = i
				break
			}
		}
		if c.slot < 0 {
			return
		}
		s.slots[c.slot] = true
		size := int32(65536 / soakSlots)
		start := int32(c.slot) * size
		meta = stickyMeta(start, start+size-1)
	case s.cfg.outOfOrder:
		meta = &proto.KeySharedMeta{KeySharedMode: proto.KeySharedMode_AUTO_SPLIT.Enum(), AllowOutOfOrderDelivery: gproto.Bool(true)}
	}
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &s.topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Key_Shared.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(s.nextRID()), ConsumerName: &name, KeySharedMeta: meta,
		InitialPosition: proto.CommandSubscribe_Earliest.Enum()}}, nil, nil)
	frames := c.c.Out.Take()
	require.NotEmpty(s.t, frames)
	require.Equal(s.t, proto.BaseCommand_SUCCESS, frames[0].Command().GetType(), "%s", frames[0].Command())
	require.Len(s.t, frames, 1, "no message before a flow")
	s.cons = append(s.cons, c)
	if n := s.rng.IntN(12); n > 0 {
		s.flow(c, uint32(n))
	}
}

func (s *soak) leave(c *soakConsumer, crash bool) {
	if !s.cfg.outOfOrder {
		require.NoError(s.t, s.chk.Left(c.label))
	}
	s.barrier() // read what it got before it goes
	s.cons = slices.DeleteFunc(s.cons, func(o *soakConsumer) bool { return o == c })
	if c.slot >= 0 {
		s.slots[c.slot] = false
	}
	if crash {
		c.c.Close()
		c.c.DetachAll()
		return
	}
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(), CloseConsumer: &proto.CommandCloseConsumer{
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(s.nextRID())}}, nil, nil)
}

func (s *soak) flow(c *soakConsumer, n uint32) {
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1), MessagePermits: &n}}, nil, nil)
}

// heldPositions returns c's held entries in position order (map order is
// random; the test must be deterministic).
func (c *soakConsumer) heldPositions() []ledger.Position {
	ps := make([]ledger.Position, 0, len(c.held))
	for p := range c.held {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, ledger.Position.Compare)
	return ps
}

// unit returns the entries that are acknowledged or given back together
// with p: every held chunk of its chunked message, or p alone; complete
// reports whether a chunked message is all there.
func (s *soak) unit(c *soakConsumer, p ledger.Position) (ps []ledger.Position, complete bool) {
	e := s.entries[p]
	if e.uuid == "" {
		return []ledger.Position{p}, true
	}
	for _, hp := range c.heldPositions() {
		if s.entries[hp].uuid == e.uuid {
			ps = append(ps, hp)
		}
	}
	return ps, len(ps) == int(e.numChunks)
}

func idData(p ledger.Position, ackSet []int64) *proto.MessageIdData {
	return &proto.MessageIdData{LedgerId: gproto.Uint64(uint64(p.Ledger)), EntryId: gproto.Uint64(uint64(p.Entry)), AckSet: ackSet}
}

func (s *soak) ack(c *soakConsumer) {
	ps := c.heldPositions()
	if len(ps) == 0 {
		return
	}
	unit, complete := s.unit(c, ps[s.rng.IntN(len(ps))])
	if !complete {
		return // a chunked message cannot be acknowledged before it is whole
	}
	ack := &proto.CommandAck{ConsumerId: gproto.Uint64(1), AckType: proto.CommandAck_Individual.Enum(), RequestId: gproto.Uint64(s.nextRID())}
	for _, p := range unit {
		e, held := s.entries[p], c.held[p]
		ackIdx := held
		var ackSet []int64
		if e.n > 1 && len(held) > 1 && s.rng.IntN(2) == 0 {
			// Acknowledge part of what is held of the batch.
			ackIdx = nil
			for _, i := range held {
				if s.rng.IntN(2) == 0 {
					ackIdx = append(ackIdx, i)
				}
			}
			ackSet = make([]int64, (e.n+63)/64)
			for i := range e.n {
				if !slices.Contains(ackIdx, i) {
					ackSet[i/64] |= 1 << (i % 64)
				}
			}
		}
		ack.MessageId = append(ack.MessageId, idData(p, ackSet))
		for _, i := range ackIdx {
			id := keyorder.ID{Ledger: p.Ledger, Entry: p.Entry, Batch: i}
			s.acked[id] = true
			if !s.cfg.outOfOrder {
				require.NoError(s.t, s.chk.Acked(c.label, id))
			}
		}
		if rest := slices.DeleteFunc(slices.Clone(held), func(i int32) bool { return slices.Contains(ackIdx, i) }); len(rest) > 0 {
			c.held[p] = rest
		} else {
			delete(c.held, p)
		}
	}
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: ack}, nil, nil)
}

func (s *soak) release(c *soakConsumer, ps []ledger.Position) {
	for _, p := range ps {
		for _, i := range c.held[p] {
			if !s.cfg.outOfOrder {
				require.NoError(s.t, s.chk.Released(c.label, keyorder.ID{Ledger: p.Ledger, Entry: p.Entry, Batch: i}))
			}
		}
		delete(c.held, p)
	}
}

func (s *soak) nack(c *soakConsumer) {
	ps := c.heldPositions()
	if len(ps) == 0 {
		return
	}
	unit, _ := s.unit(c, ps[s.rng.IntN(len(ps))])
	m := &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: gproto.Uint64(1)}
	for _, p := range unit {
		m.MessageIds = append(m.MessageIds, idData(p, nil))
	}
	s.release(c, unit)
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(), RedeliverUnacknowledgedMessages: m}, nil, nil)
}

func (s *soak) redeliverAll(c *soakConsumer) {
	s.release(c, c.heldPositions())
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(), RedeliverUnacknowledgedMessages: &proto.CommandRedeliverUnacknowledgedMessages{
		ConsumerId: gproto.Uint64(1)}}, nil, nil)
}
