package brokerstub

import (
	"slices"
	"time"

	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/internal/proto"
)

// The soak's end-of-run checks: the broker's pending counts against the
// consumers', and a drain that must deliver and acknowledge everything.

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
	s.clock.Advance(10 * time.Second) // every delayed message is due
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
