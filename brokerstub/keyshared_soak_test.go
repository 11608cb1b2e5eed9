package brokerstub

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// The Key_Shared soak: a seeded random run of producers (single messages,
// key-based batches, chunked messages interleaved between two producers)
// and consumers that join, leave, crash, acknowledge late and in part,
// negatively acknowledge, and run out of permits. Every delivery is logged
// to the keyorder checker, chunks are checked to arrive in order at the
// consumer that holds the message's first chunk, no acknowledged message
// may come again, the broker's pending counts must match the consumers',
// and at the end everything must drain.
//
// Commands go straight to the connection handlers of in-process
// connections, and every operation ends with a barrier on the topic
// goroutine, so a seed replays exactly. CI runs 12,500 operations over four
// configurations; set BROKERSTUB_SOAK_OPS for longer runs (operations per
// configuration) and BROKERSTUB_SOAK_SEED to replay a seed.

const (
	soakOpsEnv  = "BROKERSTUB_SOAK_OPS"
	soakSeedEnv = "BROKERSTUB_SOAK_SEED"
)

func TestKeySharedSoak(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(soakSeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		seed = v
	}
	scale := 0
	if s := os.Getenv(soakOpsEnv); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err)
		scale = v
	}
	for _, c := range []struct {
		name string
		ops  int
		cfg  soakConfig
	}{
		{"consistent-hashing", 5000, soakConfig{}},
		{"auto-split", 3000, soakConfig{autoSplit: true}},
		{"sticky", 3000, soakConfig{sticky: true}},
		{"out-of-order", 1500, soakConfig{outOfOrder: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ops := c.ops
			if scale > 0 {
				ops = scale
			}
			s := newSoak(t, c.cfg, seed)
			defer func() {
				if t.Failed() {
					t.Logf("soak %s failed after %d of %d operations; replay with %s=%d %s=%d -run 'TestKeySharedSoak/%s'",
						c.name, s.ops, ops, soakSeedEnv, seed, soakOpsEnv, ops, c.name)
				}
			}()
			start := time.Now()
			s.run(ops)
			s.drain()
			t.Logf("seed %d: %d operations, %d entries, %d deliveries in %v", seed, s.ops, len(s.entries), s.deliveries, time.Since(start))
		})
	}
}

type soakConfig struct {
	autoSplit, sticky, outOfOrder bool
}

type soak struct {
	t     *testing.T
	cfg   soakConfig
	rng   *rand.Rand
	b     *Broker
	topic string
	top   *topic

	prodConn  *conn
	producers []*soakProducer
	bySeq     map[[2]uint64]*soakEntry // producer id, sequence -> entry waiting for its receipt

	entries  map[ledger.Position]*soakEntry
	messages int // messages produced
	acked    map[keyorder.ID]bool

	cons    []*soakConsumer
	instSeq int
	slots   []bool // sticky: hash range slots in use
	chk     keyorder.Checker
	ops     int
	rid     uint64
	// deliveries counts MESSAGE frames received.
	deliveries int
}

type soakEntry struct {
	key                string
	n                  int32 // messages in the entry (1 unless a batch)
	uuid               string
	chunkID, numChunks int32
}

type soakProducer struct {
	id    uint64
	name  string
	seq   uint64
	chunk *soakEntry // the chunked message being sent, last chunk sent
}

type soakConsumer struct {
	label string
	c     *conn
	slot  int
	held  map[ledger.Position][]int32 // held batch indexes (-1 for a non-batch entry)
}

var soakNames = []string{"a", "b", "c", "a", "d"}

const (
	soakSlots = 4  // sticky: hash range slots
	soakKeys  = 16 // few keys, so that keys meet often
)

func newSoak(t *testing.T, cfg soakConfig, seed uint64) *soak {
	s := &soak{t: t, cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		b:       RunT(t, Options{KeyShared: KeySharedOptions{HashRangeAutoSplit: cfg.autoSplit, LookAheadPerConsumer: 50}}),
		topic:   "persistent://public/default/soak",
		bySeq:   map[[2]uint64]*soakEntry{},
		entries: map[ledger.Position]*soakEntry{},
		acked:   map[keyorder.ID]bool{},
		slots:   make([]bool, soakSlots),
	}
	s.prodConn = s.newConn()
	for i := range 2 {
		p := &soakProducer{id: uint64(i + 1)}
		s.handle(s.prodConn, &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
			Topic: &s.topic, ProducerId: &p.id, RequestId: gproto.Uint64(s.nextRID())}}, nil, nil)
		for _, f := range s.prodConn.out.Take() {
			if ps := f.cmd.GetProducerSuccess(); ps != nil {
				p.name = ps.GetProducerName()
			}
		}
		require.NotEmpty(t, p.name)
		s.producers = append(s.producers, p)
	}
	name, err := parseTopic(s.topic)
	require.NoError(t, err)
	s.top, err = s.b.getTopic(name, false)
	require.NoError(t, err)
	return s
}

func (s *soak) nextRID() uint64 { s.rid++; return s.rid }

// newConn returns a connection whose handlers the test calls directly and
// whose out queue it reads.
func (s *soak) newConn() *conn {
	a, b := net.Pipe()
	s.t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	c := newConn(s.b, a)
	c.connected = true
	return c
}

func (s *soak) handle(c *conn, cmd *proto.BaseCommand, md *proto.MessageMetadata, payload []byte) {
	if md == nil {
		c.handle(&wire.Frame{Cmd: cmd})
		return
	}
	c.handle(frameOf(s.t, cmd, md, payload))
}

// barrier waits until the topic has handled everything queued, then reads
// what the broker sent: receipts first, then deliveries.
func (s *soak) barrier() {
	require.NoError(s.t, s.top.call(func() {}))
	for _, f := range s.prodConn.out.Take() {
		r := f.cmd.GetSendReceipt()
		if r == nil {
			require.NotEqual(s.t, proto.BaseCommand_SEND_ERROR, f.cmd.GetType(), "%s", f.cmd)
			continue
		}
		k := [2]uint64{r.GetProducerId(), r.GetSequenceId()}
		e := s.bySeq[k]
		require.NotNil(s.t, e, "receipt for %v", k)
		delete(s.bySeq, k)
		s.entries[ledger.Position{Ledger: int64(r.GetMessageId().GetLedgerId()), Entry: int64(r.GetMessageId().GetEntryId())}] = e
	}
	for _, c := range s.cons {
		for _, f := range c.c.out.Take() {
			if m := f.cmd.GetMessage(); m != nil {
				s.delivered(c, m)
			}
		}
	}
}

func (s *soak) delivered(c *soakConsumer, m *proto.CommandMessage) {
	t := s.t
	s.deliveries++
	p := ledger.Position{Ledger: int64(m.GetMessageId().GetLedgerId()), Entry: int64(m.GetMessageId().GetEntryId())}
	e := s.entries[p]
	require.NotNil(t, e, "delivery of unknown entry %v", p)
	var idx []int32
	if e.n == 1 {
		idx = []int32{-1}
	} else {
		for i := range e.n {
			if len(m.AckSet) == 0 || m.AckSet[i/64]&(1<<(i%64)) != 0 {
				idx = append(idx, i)
			}
		}
	}
	if e.uuid != "" && e.chunkID > 0 {
		have := map[int32]bool{}
		for hp := range c.held {
			if he := s.entries[hp]; he.uuid == e.uuid {
				have[he.chunkID] = true
			}
		}
		for k := range e.chunkID {
			require.True(t, have[k], "%s got chunk %d of %s without chunk %d", c.label, e.chunkID, e.uuid, k)
		}
	}
	for _, i := range idx {
		id := keyorder.ID{Ledger: p.Ledger, Entry: p.Entry, Batch: i}
		require.False(t, s.acked[id], "acknowledged message %v delivered again to %s", id, c.label)
		if !s.cfg.outOfOrder {
			require.NoError(t, s.chk.Received(c.label, e.key, id))
		}
	}
	held := c.held[p]
	for _, i := range idx {
		if !slices.Contains(held, i) {
			held = append(held, i)
		}
	}
	slices.Sort(held)
	c.held[p] = held
}

func (s *soak) run(ops int) {
	for s.ops = 0; s.ops < ops; s.ops++ {
		s.step()
		s.barrier()
		if s.ops%50 == 0 {
			s.checkPending()
		}
	}
}

func (s *soak) step() {
	if len(s.cons) == 0 {
		s.subscribe()
		return
	}
	switch r := s.rng.IntN(100); {
	case r < 35:
		s.produce(s.producers[s.rng.IntN(len(s.producers))])
	case r < 40:
		if len(s.cons) < 5 {
			s.subscribe()
		}
	case r < 42:
		if len(s.cons) > 1 {
			s.leave(s.pick(), false)
		}
	case r < 44:
		if len(s.cons) > 1 {
			s.leave(s.pick(), true)
		}
	case r < 64:
		s.flow(s.pick(), uint32(1+s.rng.IntN(8)))
	case r < 90:
		s.ack(s.pick())
	case r < 98:
		s.nack(s.pick())
	default:
		s.redeliverAll(s.pick())
	}
}

func (s *soak) pick() *soakConsumer { return s.cons[s.rng.IntN(len(s.cons))] }

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
	frames := c.c.out.Take()
	require.NotEmpty(s.t, frames)
	require.Equal(s.t, proto.BaseCommand_SUCCESS, frames[0].cmd.GetType(), "%s", frames[0].cmd)
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
		c.c.close()
		c.c.detachAll()
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

// checkPending compares the broker's view of each consumer with the test's.
func (s *soak) checkPending() {
	st, err := s.b.KeyShared(s.topic, "s")
	require.NoError(s.t, err)
	require.Len(s.t, st.Consumers, len(s.cons))
	for i, c := range s.cons {
		require.Equal(s.t, len(c.held), st.Consumers[i].Pending, "pending of %s", c.label)
	}
}

// drain finishes the chunked messages in progress, then lets every
// consumer take and acknowledge everything: all messages must end up
// acknowledged — no hash may stay blocked.
func (s *soak) drain() {
	for _, p := range s.producers {
		for p.chunk != nil {
			s.produce(p)
		}
	}
	if len(s.cons) == 0 {
		s.subscribe()
	}
	for s.cfg.sticky && slices.Contains(s.slots, false) {
		s.subscribe() // every hash range needs a consumer
	}
	s.barrier()
	for round := 0; len(s.acked) < s.messages; round++ {
		require.Less(s.t, round, 500, "stuck: %d of %d messages acknowledged", len(s.acked), s.messages)
		for _, c := range s.cons {
			s.flow(c, 100)
			for len(c.held) > 0 {
				before := len(c.held)
				for _, p := range c.heldPositions() {
					if _, ok := c.held[p]; ok {
						if _, complete := s.unit(c, p); complete {
							s.ackAll(c, p)
						}
					}
				}
				if len(c.held) == before {
					break // incomplete chunked messages: their chunks are on the way
				}
			}
		}
		s.barrier()
	}
	if !s.cfg.outOfOrder {
		require.NoError(s.t, s.chk.Err())
	}
}

// ackAll acknowledges everything held of p's unit.
func (s *soak) ackAll(c *soakConsumer, p ledger.Position) {
	unit, _ := s.unit(c, p)
	ack := &proto.CommandAck{ConsumerId: gproto.Uint64(1), AckType: proto.CommandAck_Individual.Enum(), RequestId: gproto.Uint64(s.nextRID())}
	for _, up := range unit {
		ack.MessageId = append(ack.MessageId, idData(up, nil))
		for _, i := range c.held[up] {
			id := keyorder.ID{Ledger: up.Ledger, Entry: up.Entry, Batch: i}
			s.acked[id] = true
			if !s.cfg.outOfOrder {
				require.NoError(s.t, s.chk.Acked(c.label, id))
			}
		}
		delete(c.held, up)
	}
	s.handle(c.c, &proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: ack}, nil, nil)
}
