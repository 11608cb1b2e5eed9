package brokerstub

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/stretchr/testify/require"
)

// The Key_Shared soak: a seeded random run of producers (single messages,
// key-based batches, chunked messages interleaved between two producers)
// and consumers that join, leave, crash, acknowledge late and in part,
// negatively acknowledge, and run out of permits; some messages are
// delayed (deliver_at_time, on the broker's fake clock, which the soak
// moves). Every delivery is logged
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
	top   *engine.Topic

	prodConn  *protocol.Conn
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
	// clock is the broker's; some messages are delayed (deliver_at_time)
	// and time moves by an operation of its own.
	clock *FakeClock
}

type soakEntry struct {
	key                string
	n                  int32 // messages in the entry (1 unless a batch)
	uuid               string
	chunkID, numChunks int32
	delayed            bool  // sent with a deliver_at_time in the future
	dueAt              int64 // its deliver_at_time, Unix ms
}

type soakProducer struct {
	id    uint64
	name  string
	seq   uint64
	chunk *soakEntry // the chunked message being sent, last chunk sent
}

type soakConsumer struct {
	label string
	c     *protocol.Conn
	slot  int
	held  map[ledger.Position][]int32 // held batch indexes (-1 for a non-batch entry)
}

var soakNames = []string{"a", "b", "c", "a", "d"}

const (
	soakSlots = 4  // sticky: hash range slots
	soakKeys  = 16 // few keys, so that keys meet often
)

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
	case r < 33:
		s.produce(s.producers[s.rng.IntN(len(s.producers))])
	case r < 35:
		s.clock.Advance(time.Second) // delayed messages fall due
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
