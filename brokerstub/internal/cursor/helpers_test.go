package cursor

import (
	"sort"
	"time"
)

// fakeLayout is a Layout (and Counter) over a sorted slice of positions.
type fakeLayout struct{ pos []Position }

// newLayout builds a layout from (ledger, entries) pairs: ledger L holds
// L:0 .. L:entries-1. Ledgers must be given in ascending order.
func newLayout(ledgers ...[2]int64) *fakeLayout {
	l := &fakeLayout{}
	for _, le := range ledgers {
		l.appendLedger(le[0], le[1])
	}
	return l
}

func (l *fakeLayout) appendLedger(ledger, entries int64) {
	for e := int64(0); e < entries; e++ {
		l.pos = append(l.pos, Position{Ledger: ledger, Entry: e})
	}
}

// idx returns the index of the first position >= p.
func (l *fakeLayout) idx(p Position) int {
	return sort.Search(len(l.pos), func(i int) bool { return !l.pos[i].Less(p) })
}

func (l *fakeLayout) Next(p Position) (Position, bool) {
	i := sort.Search(len(l.pos), func(i int) bool { return p.Less(l.pos[i]) })
	if i == len(l.pos) {
		return Position{}, false
	}
	return l.pos[i], true
}

func (l *fakeLayout) Prev(p Position) (Position, bool) {
	i := l.idx(p)
	if i == 0 {
		return Position{}, false
	}
	return l.pos[i-1], true
}

func (l *fakeLayout) CountBetween(after, upTo Position) int {
	if !after.Less(upTo) {
		return 0
	}
	lo := sort.Search(len(l.pos), func(i int) bool { return after.Less(l.pos[i]) })
	hi := sort.Search(len(l.pos), func(i int) bool { return upTo.Less(l.pos[i]) })
	return hi - lo
}

// walkLayout hides the Counter of a fakeLayout.
type walkLayout struct{ l *fakeLayout }

func (w walkLayout) Next(p Position) (Position, bool) { return w.l.Next(p) }
func (w walkLayout) Prev(p Position) (Position, bool) { return w.l.Prev(p) }

// pos is shorthand for a Position.
func pos(ledger, entry int64) Position { return Position{Ledger: ledger, Entry: entry} }

// fakeClock is an injectable clock.
type fakeClock struct{ t time.Time }

func newClock() *fakeClock { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

// unackedSet returns the ack_set of a batch of batchSize messages in which
// the indexes in acked are acknowledged (their bits clear) and the others
// are not (their bits set): the wire form of an ack of those indexes.
func unackedSet(batchSize int, acked ...int) []int64 {
	w := make([]int64, batchWords(batchSize))
	for i := 0; i < batchSize; i++ {
		w[i/64] |= 1 << uint(i%64)
	}
	for _, i := range acked {
		w[i/64] &^= 1 << uint(i%64)
	}
	return w
}

// ackRange is unackedSet with the indexes [start, end] acknowledged (as
// Pulsar's tests' IntRange).
func ackRange(batchSize, start, end int) []int64 {
	var acked []int
	for i := start; i <= end; i++ {
		acked = append(acked, i)
	}
	return unackedSet(batchSize, acked...)
}

// ackedIndexes lists the acknowledged (clear) indexes of a bitmap within
// batchSize; nil bitmap means none acknowledged.
func ackedIndexes(w []int64, batchSize int) []int {
	if w == nil {
		return nil
	}
	var out []int
	for i := 0; i < batchSize; i++ {
		if i/64 >= len(w) || w[i/64]&(1<<uint(i%64)) == 0 {
			out = append(out, i)
		}
	}
	return out
}

// testOpts returns options over clock with unlimited rate.
func testOpts(c *fakeClock) Options {
	return Options{FlushInterval: time.Second, Now: c.Now}
}
