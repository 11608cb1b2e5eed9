package brokerstub

import (
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/stretchr/testify/require"

	gproto "google.golang.org/protobuf/proto"
)

// The soak's side of the wire: in-process connections whose handlers it
// calls directly, the barrier on the topic goroutine, and the checks on
// every delivery.

func newSoak(t *testing.T, cfg soakConfig, seed uint64) *soak {
	clock := NewFakeClock(time.Unix(1_700_000_000, 0))
	s := &soak{t: t, cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), clock: clock,
		b: RunT(t, Options{Clock: clock, DelayedDeliveryStrict: true,
			KeyShared: KeySharedOptions{HashRangeAutoSplit: cfg.autoSplit, LookAheadPerConsumer: 50}}),
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
		for _, f := range s.prodConn.Out.Take() {
			if ps := f.Command().GetProducerSuccess(); ps != nil {
				p.name = ps.GetProducerName()
			}
		}
		require.NotEmpty(t, p.name)
		s.producers = append(s.producers, p)
	}
	name, err := engine.ParseTopic(s.topic)
	require.NoError(t, err)
	s.top, err = s.b.eng.GetTopic(name, false)
	require.NoError(t, err)
	return s
}

func (s *soak) nextRID() uint64 { s.rid++; return s.rid }

// newConn returns a connection whose handlers the test calls directly and
// whose out queue it reads.
func (s *soak) newConn() *protocol.Conn {
	a, b := net.Pipe()
	s.t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	c := protocol.NewConn(s.b.srv, a)
	c.Connected = true
	return c
}

func (s *soak) handle(c *protocol.Conn, cmd *proto.BaseCommand, md *proto.MessageMetadata, payload []byte) {
	if md == nil {
		c.Handle(&wire.Frame{Cmd: cmd})
		return
	}
	c.Handle(frameOf(s.t, cmd, md, payload))
}

// barrier waits until the topic has handled everything queued, then reads
// what the broker sent: receipts first, then deliveries.
func (s *soak) barrier() {
	require.NoError(s.t, s.top.Call(func() {}))
	for _, f := range s.prodConn.Out.Take() {
		r := f.Command().GetSendReceipt()
		if r == nil {
			require.NotEqual(s.t, proto.BaseCommand_SEND_ERROR, f.Command().GetType(), "%s", f.Command())
			continue
		}
		k := [2]uint64{r.GetProducerId(), r.GetSequenceId()}
		e := s.bySeq[k]
		require.NotNil(s.t, e, "receipt for %v", k)
		delete(s.bySeq, k)
		s.entries[ledger.Position{Ledger: int64(r.GetMessageId().GetLedgerId()), Entry: int64(r.GetMessageId().GetEntryId())}] = e
	}
	for _, c := range s.cons {
		for _, f := range c.c.Out.Take() {
			if m := f.Command().GetMessage(); m != nil {
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
			require.NoError(t, s.chk.Add(keyorder.Event{Kind: keyorder.Received, Consumer: c.label, Key: e.key, ID: id, Delayed: e.delayed}))
			if e.delayed {
				require.False(t, s.clock.Now().UnixMilli() < e.dueAt, "delayed %v delivered before its time", p)
			}
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
