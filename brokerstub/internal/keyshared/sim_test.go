package keyshared

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// sim is a minimal broker around a KeyShared: entries are ledger 1 entry
// i, consumers are counters. It implements Source.
type sim struct {
	t       *testing.T
	k       *KeyShared
	replay  Replay
	entries []Entry
	keys    []string
	read    int // entries [0, read) were read
	acked   map[int]bool
	cons    map[ConsumerID]*simConsumer
	next    ConsumerID
}

type simConsumer struct {
	name    string
	permits int64
	pending map[int]int32 // entry -> hash
	got     []int         // every delivery, in order
}

func newSim(t *testing.T, cfg Config) *sim {
	s := &sim{t: t, acked: map[int]bool{}, cons: map[ConsumerID]*simConsumer{}}
	s.k = NewKeyShared(cfg, &s.replay)
	return s
}

func (s *sim) add(name string, permits int64) ConsumerID {
	s.next++
	id := s.next
	c := &simConsumer{name: name, permits: permits, pending: map[int]int32{}}
	s.cons[id] = c
	require.NoError(s.t, s.k.Add(Member{ID: id, Name: name,
		Permits: func() int64 { return c.permits },
		Pending: func(yield func(int32) bool) {
			for _, h := range c.pending {
				if !yield(h) {
					return
				}
			}
		}}))
	s.dispatch()
	return id
}

func (s *sim) remove(id ConsumerID) {
	for e, h := range s.cons[id].pending {
		s.replay.Add(pos(e), h)
	}
	delete(s.cons, id)
	s.k.Remove(id)
	s.dispatch()
}

func pos(e int) ledger.Position { return ledger.Position{Ledger: 1, Entry: int64(e)} }

func (s *sim) publish(key string) int {
	s.entries = append(s.entries, Entry{Hash: s.k.Hash(Murmur31([]byte(key)))})
	s.keys = append(s.keys, key)
	s.dispatch()
	return len(s.entries) - 1
}

func (s *sim) ack(id ConsumerID, e int) {
	c := s.cons[id]
	h, ok := c.pending[e]
	require.True(s.t, ok, "%s does not hold %d", c.name, e)
	delete(c.pending, e)
	s.acked[e] = true
	s.k.Released(id, h)
	s.dispatch()
}

func (s *sim) nack(id ConsumerID, e int) {
	c := s.cons[id]
	h := c.pending[e]
	delete(c.pending, e)
	s.replay.Add(pos(e), h)
	s.k.Released(id, h)
	s.dispatch()
}

func (s *sim) flow(id ConsumerID, n int64) {
	s.cons[id].permits += n
	s.dispatch()
}

func (s *sim) dispatch() { s.k.Dispatch(s) }

func (s *sim) Entry(p ledger.Position) (Entry, bool) {
	e := int(p.Entry)
	if s.acked[e] {
		return Entry{}, false
	}
	return s.entries[e], true
}

func (s *sim) Next() (ledger.Position, Entry, bool) {
	for s.read < len(s.entries) {
		e := s.read
		s.read++
		if !s.acked[e] {
			return pos(e), s.entries[e], true
		}
	}
	return ledger.Position{}, Entry{}, false
}

func (s *sim) Send(id ConsumerID, p ledger.Position, e Entry) {
	c := s.cons[id]
	c.permits--
	c.pending[int(p.Entry)] = e.Hash
	c.got = append(c.got, int(p.Entry))
}

func (s *sim) got(id ConsumerID) []int { return slices.Clone(s.cons[id].got) }

// keyFor returns a key the selector gives to want now, and to wantAfter
// (when not 0) once another consumer with name joins.
func keyFor(t *testing.T, names []string, want string, joining string, wantAfter string) string {
	t.Helper()
	sel := func(names []string) *Consistent {
		c := NewConsistent(0)
		for i, n := range names {
			require.NoError(t, c.Add(&Member{ID: ConsumerID(i + 1), Name: n}))
		}
		return c
	}
	before, after := sel(names), sel(append(slices.Clone(names), joining))
	for i := range 100000 {
		key := fmt.Sprint("key-", i)
		h := StickyKeyHash([]byte(key), consistentRange)
		b, _ := before.Select(h)
		a, _ := after.Select(h)
		all := append(slices.Clone(names), joining)
		if names[b-1] == want && (wantAfter == "" || all[a-1] == wantAfter) {
			return key
		}
	}
	t.Fatal("no key found")
	return ""
}

// TestSimPIP282Scenario1 is PIP-282's first scenario on the pure
// dispatcher: c3 gets 1:6 before 1:7 and 1:8.
//
// Protects keyshared.go, KeyShared.Add: "k.registerDraining(before)".
// The mutation test (brokerstub/seed_mutation_test.go, PULSARGO_MUTATION=1)
// checks that this test fails without it.
func TestSimPIP282Scenario1(t *testing.T) {
	keyA := keyFor(t, []string{"c1", "c2"}, "c1", "c3", "c3")
	keyB := keyFor(t, []string{"c1", "c2"}, "c2", "c3", "c2")
	s := newSim(t, Config{})
	c1 := s.add("c1", 1)
	c2 := s.add("c2", 1000)
	for _, k := range []string{keyA, keyA, keyA, keyB, keyB, keyB} {
		s.publish(k)
	}
	require.Equal(t, []int{0}, s.got(c1))
	require.Equal(t, []int{3, 4, 5}, s.got(c2))
	c3 := s.add("c3", 1000)
	require.Empty(t, s.got(c3), "key-a drains at c1")
	s.remove(c1)
	require.Equal(t, []int{0, 1, 2}, s.got(c3))
}

// TestSimPIP282Scenario2: 2:2 waits for replay because c1 had no permits;
// c3 joins; c1 leaves: c3 gets 2:1 before 2:2.
//
// Protects route.go, Pass.Route: the branch
// "} else if k.draining.ShouldBlock(id, e.Hash) {".
// The mutation test (brokerstub/seed_mutation_test.go, PULSARGO_MUTATION=1)
// checks that this test fails without it.
func TestSimPIP282Scenario2(t *testing.T) {
	keyA := keyFor(t, []string{"c1", "c2"}, "c1", "c3", "c3")
	s := newSim(t, Config{})
	c1 := s.add("c1", 1)
	s.add("c2", 1000)
	s.publish(keyA)
	s.publish(keyA)
	require.Equal(t, []int{0}, s.got(c1))
	require.Equal(t, 1, s.replay.Len())
	c3 := s.add("c3", 1000)
	require.Empty(t, s.got(c3))
	s.remove(c1)
	require.Equal(t, []int{0, 1}, s.got(c3))
}

// TestSimNackedMessageGoesFirst: a nacked entry waits in the replay queue
// while its consumer has no permits; a newer entry of its key waits behind
// it (its consumer has no permits either), another key flows on; with
// permits back, the redelivery goes first.
func TestSimNackedMessageGoesFirst(t *testing.T) {
	keyA := keyFor(t, []string{"c1", "c2"}, "c1", "", "")
	keyB := keyFor(t, []string{"c1", "c2"}, "c2", "", "")
	s := newSim(t, Config{})
	c1 := s.add("c1", 1)
	c2 := s.add("c2", 1000)
	s.publish(keyA)
	s.nack(c1, 0) // c1 has no permits left: 0 waits in the replay queue
	s.publish(keyA)
	s.publish(keyB)
	require.Equal(t, []int{0}, s.got(c1))
	require.Equal(t, []int{2}, s.got(c2), "other keys flow on")
	require.Equal(t, 2, s.replay.Len(), "1 waits behind 0")
	s.flow(c1, 1)
	require.Equal(t, []int{0, 0}, s.got(c1), "the redelivery first")
	s.flow(c1, 1)
	require.Equal(t, []int{0, 0, 1}, s.got(c1))
}

// TestSim10762 is apache/pulsar#10762's scenario on the pure dispatcher:
// the replay queue holds m1 (key-a, for c1) and m2 (key-b, for c2); c1
// cannot take m1 (no permits); c2 gets permits and the dispatcher goes on to
// read m3 (key-b, for c2): m3 must not reach c2 before m2.
//
// m3 is published while no consumer has permits, so it is still unread when
// c2's permits come back: that one pass both sweeps the replay queue and
// reads m3.
//
// Protects route.go, Dispatch: the replay sweep goes on past an entry Route
// refuses ("i++ // go on past it" and its continue), and it runs before new
// entries are read. A sweep that stops there (break), or reading new
// entries first, lets m3 overtake m2. The mutation test
// (brokerstub/seed_mutation_test.go) checks that this test fails with
// either.
func TestSim10762(t *testing.T) {
	keyA := keyFor(t, []string{"c1", "c2"}, "c1", "", "")
	keyB := keyFor(t, []string{"c1", "c2"}, "c2", "", "")
	s := newSim(t, Config{})
	c1 := s.add("c1", 1)
	c2 := s.add("c2", 1)
	m1 := s.publish(keyA)
	m2 := s.publish(keyB)
	s.nack(c1, m1)
	s.nack(c2, m2)
	require.Equal(t, 2, s.replay.Len(), "m1 and m2 wait for replay")
	m3 := s.publish(keyB)
	require.Equal(t, 0, s.read-m3, "m3 is not read while no consumer has permits")
	s.flow(c2, 2)
	require.Equal(t, []int{m1}, s.got(c1), "c1 has no permits")
	require.Equal(t, []int{m2, m2, m3}, s.got(c2), "m2's redelivery before m3")
}

// TestSimBlockedHashIsCountedOncePerPass: three entries of a hash that
// drains at c1 are read in one pass while x, its new owner, has permits.
// The first is refused by the draining check (one blocked attempt); the
// other two are held back by the pass without asking it again, as Pulsar
// holds back every later entry of a blocked hash in a read batch. The
// draining hash's Blocked count (its blockedAttempts) is 1, not 3.
//
// Protects route.go, Pass.Route: the held-back check
// ("if p.blocked[e.Hash]") and Pass.block; the mutation test
// (brokerstub/seed_mutation_test.go) checks that this test fails without
// them.
func TestSimBlockedHashIsCountedOncePerPass(t *testing.T) {
	key := keyFor(t, []string{"c1"}, "c1", "x", "x")
	s := newSim(t, Config{})
	c1 := s.add("c1", 1)
	s.publish(key)
	x := s.add("x", 0)
	for range 3 {
		s.publish(key)
	}
	require.Equal(t, 1, s.read, "nothing is read while no consumer has permits")
	s.flow(x, 10)
	require.Empty(t, s.got(x), "the hash drains at c1")
	require.Equal(t, 3, s.replay.Len(), "the three entries wait for replay")
	require.Equal(t, []DrainingHash{{Hash: s.entries[0].Hash, Unacked: 1, Blocked: 1}}, s.k.Draining(c1))
	s.ack(c1, 0)
	require.Equal(t, []int{1, 2, 3}, s.got(x), "x gets the key once c1 acknowledged")
}

// TestSimOutOfOrderDeliveryRelaxesOrdering: with allowOutOfOrderDelivery a
// new consumer gets its keys at once, even while the old owner holds some.
func TestSimOutOfOrderDeliveryRelaxesOrdering(t *testing.T) {
	keyA := keyFor(t, []string{"c1"}, "c1", "c2", "c2")
	s := newSim(t, Config{AllowOutOfOrderDelivery: true})
	c1 := s.add("c1", 1)
	s.publish(keyA)
	s.publish(keyA) // no permits at c1: queued
	c2 := s.add("c2", 10)
	require.Equal(t, []int{0}, s.got(c1))
	require.Equal(t, []int{1}, s.got(c2), "no draining: c2 gets 1 while c1 holds 0")
	s.publish(keyA)
	require.Equal(t, []int{1, 2}, s.got(c2))
}

// TestSimChunksFollowTheirFirstChunk: the hash of a chunked message moves
// to c2 after c1 got its first chunk; the rest of the message, and an
// entry of the same key between its chunks, go to c1 until the last chunk;
// c2 takes the key once c1 acknowledged everything.
func TestSimChunksFollowTheirFirstChunk(t *testing.T) {
	keyA := keyFor(t, []string{"c1"}, "c1", "c2", "c2")
	s := newSim(t, Config{})
	h := s.k.Hash(Murmur31([]byte(keyA)))
	chunk := func(id int32) int {
		s.entries = append(s.entries, Entry{Hash: h, ChunkUUID: "p-1", ChunkID: id, NumChunks: 3})
		s.dispatch()
		return len(s.entries) - 1
	}
	c1 := s.add("c1", 100)
	chunk(0)
	c2 := s.add("c2", 100)
	s.publish(keyA)
	chunk(1)
	chunk(2)
	s.publish(keyA)
	require.Equal(t, []int{0, 1, 2, 3}, s.got(c1))
	require.Empty(t, s.got(c2))
	for _, e := range []int{0, 1, 2, 3} {
		s.ack(c1, e)
	}
	require.Equal(t, []int{4}, s.got(c2))
}

// TestSimLookAheadIsBounded: c1 has no permits and owns every key; c2
// keeps reading possible, but reading stops at the replay limit.
func TestSimLookAheadIsBounded(t *testing.T) {
	keyA := keyFor(t, []string{"c1", "c2"}, "c1", "", "")
	s := newSim(t, Config{LookAheadPerSubscription: 5})
	c1 := s.add("c1", 0)
	s.add("c2", 1000)
	for range 20 {
		s.publish(keyA)
	}
	require.Equal(t, 5, s.replay.Len())
	require.Equal(t, 5, s.read)
	s.flow(c1, 100)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, s.got(c1))
}

func TestCheckPolicy(t *testing.T) {
	k := NewKeyShared(Config{}, &Replay{})
	require.NoError(t, k.CheckPolicy(0, false))
	require.EqualError(t, k.CheckPolicy(1, false), "Subscription is of different type. Active subscription key_shared mode of 'AUTO_SPLIT' is different than the connecting consumer's key_shared mode 'STICKY'.")
	require.EqualError(t, k.CheckPolicy(0, true), "Subscription is of different type. Active subscription does not allow out of order delivery while the connecting consumer allows it.")
	k = NewKeyShared(Config{AllowOutOfOrderDelivery: true}, &Replay{})
	require.EqualError(t, k.CheckPolicy(0, false), "Subscription is of different type. Active subscription allows out of order delivery while the connecting consumer does not allow it.")
}

// TestSimDrainingIsNotCountedTwice: a hash moves from c1 to x, back to c1
// when x leaves, and to a new x again, while c1 holds the same two
// entries. Pulsar adds the entries to the draining count a second time and
// the hash stays blocked after c1 acknowledged them; here it is released.
func TestSimDrainingIsNotCountedTwice(t *testing.T) {
	key := keyFor(t, []string{"c1"}, "c1", "x", "x")
	s := newSim(t, Config{})
	c1 := s.add("c1", 10)
	s.publish(key)
	s.publish(key)
	x := s.add("x", 10)
	s.remove(x)
	x2 := s.add("x", 10)
	s.publish(key)
	require.Empty(t, s.got(x2))
	require.Equal(t, []DrainingHash{{Hash: s.entries[0].Hash, Unacked: 2, Blocked: 1}}, s.k.Draining(c1))
	s.ack(c1, 0)
	s.ack(c1, 1)
	require.Equal(t, []int{2}, s.got(x2))
}
