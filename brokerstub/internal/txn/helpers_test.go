package txn

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/internal/clock"
)

// end is one call of the coordinator into fakeTopics.
type end struct {
	Topic, Sub string // Sub "" for a partition
	ID         ID
	Commit     bool
	Acks       []Ack
}

// fakeTopics records the coordinator's calls; fail, when set, is the
// error of every end.
type fakeTopics struct {
	mu     sync.Mutex
	ends   []end
	fail   error
	buffer map[string]*Buffer // InBuffer's answers by topic
}

func (f *fakeTopics) EndOnPartition(topic string, id ID, commit bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ends = append(f.ends, end{Topic: topic, ID: id, Commit: commit})
	return f.fail
}

func (f *fakeTopics) EndOnSubscription(topic, sub string, id ID, commit bool, acks []Ack) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ends = append(f.ends, end{Topic: topic, Sub: sub, ID: id, Commit: commit, Acks: acks})
	return f.fail
}

func (f *fakeTopics) InBuffer(topic string, id ID) InBufferStats { return f.buffer[topic].InBuffer(id) }

// took returns the ends recorded since the last call.
func (f *fakeTopics) took() []end {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.ends
	f.ends = nil
	return out
}

// rig is a coordinator on a fake clock, a memory store and fakeTopics.
type rig struct {
	clk    *clock.Fake
	kv     store.MetaStore
	topics *fakeTopics
}

func newRig() *rig {
	return &rig{clk: clock.NewFake(time.Unix(1_700_000_000, 0)), kv: store.NewMemory().(store.MetaStore),
		topics: &fakeTopics{buffer: map[string]*Buffer{}}}
}

// load starts a coordinator on the rig's store with cfg's other fields.
func (r *rig) load(t *testing.T, cfg Config) *Coordinator {
	t.Helper()
	cfg.Clock, cfg.Store, cfg.Topics = r.clk, r.kv, r.topics
	c, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Recover()
	t.Cleanup(c.Close)
	return c
}

func mustNew(t *testing.T, c *Coordinator, as Caller, timeout time.Duration) ID {
	t.Helper()
	id, err := c.NewTxn(as, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// entries is a topic's ledger for the buffer: entries in position order.
type entries []Entry

func (es entries) Last() (ledger.Position, bool) {
	if len(es) == 0 {
		return ledger.Position{}, false
	}
	return es[len(es)-1].Pos, true
}

func (es entries) Prev(p ledger.Position) (ledger.Position, bool) {
	i := slices.IndexFunc(es, func(e Entry) bool { return e.Pos == p })
	if i <= 0 {
		return ledger.Position{}, false
	}
	return es[i-1].Pos, true
}

func (es entries) Entry(p ledger.Position) (Entry, bool) {
	i := slices.IndexFunc(es, func(e Entry) bool { return e.Pos == p })
	if i < 0 {
		return Entry{}, false
	}
	return es[i], true
}

func (es entries) all(yield func(Entry) bool) {
	for _, e := range es {
		if !yield(e) {
			return
		}
	}
}

// fakeCursor is a cursor of individual acks and batch ack sets.
type fakeCursor struct {
	md    ledger.Position
	acked map[ledger.Position]bool
	sets  map[ledger.Position][]int64
}

func newCursor() *fakeCursor {
	return &fakeCursor{md: ledger.Position{Ledger: 1, Entry: -1}, acked: map[ledger.Position]bool{}, sets: map[ledger.Position][]int64{}}
}

func (c *fakeCursor) MarkDelete() ledger.Position { return c.md }
func (c *fakeCursor) IsAcked(p ledger.Position) bool {
	return !c.md.Less(p) || c.acked[p]
}
func (c *fakeCursor) AckSet(p ledger.Position) []int64 { return c.sets[p] }
func (c *fakeCursor) AckIndividual(p ledger.Position, _ []int64, _ int) bool {
	c.acked[p] = true
	return true
}

func pos(e int64) ledger.Position { return ledger.Position{Ledger: 1, Entry: e} }
