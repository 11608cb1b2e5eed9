package cursor

// Ports of Apache Pulsar's ManagedCursorTest cases that concern batch-index
// acks and cursor persistence.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenAcrossLedgers is a layout of 10 entries over two ledgers with a gap:
// 3:0..3:2 then 5:0..5:6.
func tenAcrossLedgers() (*fakeLayout, []Position) {
	l := newLayout([2]int64{3, 3}, [2]int64{5, 7})
	return l, append([]Position(nil), l.pos...)
}

func TestBatchIndexDelete(t *testing.T) {
	l, p := tenAcrossLedgers()
	c := New(pos(3, -1), l, testOpts(newClock()))

	require.True(t, c.AckIndividual(p[0], ackRange(10, 2, 4), 10))
	assert.Equal(t, []int{2, 3, 4}, ackedIndexes(c.AckSet(p[0]), 10))

	// AND-merging with what is stored.
	require.True(t, c.AckIndividual(p[0], ackRange(10, 3, 8), 10))
	assert.Equal(t, []int{2, 3, 4, 5, 6, 7, 8}, ackedIndexes(c.AckSet(p[0]), 10))
	require.True(t, c.AckIndividual(p[0], ackRange(10, 0, 0), 10))
	assert.Equal(t, []int{0, 2, 3, 4, 5, 6, 7, 8}, ackedIndexes(c.AckSet(p[0]), 10))
	assert.Equal(t, 2, c.UnackedInEntry(p[0], 10))
	// Acking indexes already acked changes nothing.
	assert.False(t, c.AckIndividual(p[0], ackRange(10, 3, 5), 10))

	// The last indexes complete the batch: mark-delete moves, bitmap dropped.
	require.True(t, c.AckIndividual(p[0], unackedSet(10, 1, 9), 10))
	assert.Nil(t, c.AckSet(p[0]))
	assert.Equal(t, p[0], c.MarkDelete())
	assert.True(t, c.IsAcked(p[0]))
	assert.Equal(t, 0, c.UnackedInEntry(p[0], 10))

	// A batch ack of every index is a whole-entry ack.
	require.True(t, c.AckIndividual(p[1], ackRange(10, 0, 9), 10))
	assert.Nil(t, c.AckSet(p[1]))
	assert.Equal(t, p[1], c.MarkDelete())

	// A whole-entry delete drops the bitmap.
	require.True(t, c.AckIndividual(p[2], ackRange(10, 0, 4), 10))
	require.True(t, c.AckIndividual(p[2], nil, 10))
	assert.Nil(t, c.AckSet(p[2]))
	assert.Equal(t, p[2], c.MarkDelete())

	// A cumulative ack over a partial batch drops its bitmap; it crosses the
	// ledger boundary 3:2 -> 5:0.
	require.True(t, c.AckIndividual(p[3], ackRange(10, 0, 4), 10))
	require.True(t, c.AckIndividual(p[4], ackRange(10, 0, 4), 10))
	require.True(t, c.AckCumulative(p[4], nil, 10))
	assert.Nil(t, c.AckSet(p[3]))
	assert.Nil(t, c.AckSet(p[4]))
	assert.Equal(t, p[4], c.MarkDelete())
	assert.Equal(t, 0, c.Stats().BatchEntries)

	// Out of order: a partial batch blocks the mark-delete until completed.
	require.True(t, c.AckIndividual(p[6], ackRange(10, 0, 4), 10))
	require.True(t, c.AckIndividual(p[7], nil, 10))
	require.True(t, c.AckIndividual(p[5], nil, 10))
	assert.Equal(t, p[5], c.MarkDelete())
	assert.Equal(t, [][2]Position{{p[7], p[7]}}, c.Current().Ranges)
	require.True(t, c.AckIndividual(p[6], ackRange(10, 5, 9), 10))
	assert.Equal(t, p[7], c.MarkDelete())
	assert.Nil(t, c.Current().Ranges)
	assert.Nil(t, c.Current().Bitmaps)
}

func TestBatchIndexMarkDelete(t *testing.T) {
	l, p := tenAcrossLedgers()
	c := New(pos(3, -1), l, testOpts(newClock()))

	// Cumulative ack up to batch index 5 of p[1]: mark-delete = p[0].
	require.True(t, c.AckCumulative(p[1], ackRange(10, 0, 4), 10))
	assert.Equal(t, p[0], c.MarkDelete())
	assert.Equal(t, []int{0, 1, 2, 3, 4}, ackedIndexes(c.AckSet(p[1]), 10))
	_, ok := c.Flush()
	require.True(t, ok)

	// A later cumulative ack with a smaller batch index cannot roll back.
	assert.False(t, c.AckCumulative(p[1], ackRange(10, 0, 2), 10))
	assert.Equal(t, []int{0, 1, 2, 3, 4}, ackedIndexes(c.AckSet(p[1]), 10))
	assert.False(t, c.Dirty(), "a no-op cumulative ack must not dirty the cursor")

	// Behind the mark-delete: ignored.
	assert.False(t, c.AckCumulative(p[0], nil, 1))
	assert.False(t, c.AckCumulative(p[0], ackRange(10, 0, 0), 10))
	assert.False(t, c.Dirty())

	// Individually acked index 8, then a cumulative ack up to index 7: index
	// 8 stays acknowledged (Pulsar's replace-if-greater would lose it).
	require.True(t, c.AckIndividual(p[1], ackRange(10, 8, 8), 10))
	require.True(t, c.AckCumulative(p[1], ackRange(10, 0, 6), 10))
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 8}, ackedIndexes(c.AckSet(p[1]), 10))
	assert.Equal(t, p[0], c.MarkDelete())

	// A cumulative ack with a bitmap on a later entry moves mark-delete to
	// the entry before it (across the ledger boundary) and drops bitmaps.
	require.True(t, c.AckCumulative(p[3], ackRange(10, 0, 1), 10))
	assert.Equal(t, p[2], c.MarkDelete())
	assert.Nil(t, c.AckSet(p[1]))
	assert.True(t, c.IsAcked(p[1]))
	assert.Equal(t, []int{0, 1}, ackedIndexes(c.AckSet(p[3]), 10))
}

func TestBatchIndexesDeletionPersistAndRecover(t *testing.T) {
	l, p := tenAcrossLedgers()
	clk := newClock()
	c := New(pos(3, -1), l, testOpts(clk))

	c.AckIndividual(p[6], ackRange(10, 1, 3), 10)
	c.AckIndividual(p[5], ackRange(10, 3, 6), 10)
	c.AckIndividual(p[0], ackRange(10, 0, 9), 10)
	c.AckIndividual(p[1], ackRange(10, 0, 9), 10)
	c.AckIndividual(p[3], ackRange(10, 0, 9), 10)
	c.AckIndividual(p[2], ackRange(10, 0, 8), 10)
	before := c.Current()
	assert.Equal(t, p[1], before.MarkDelete)
	assert.Len(t, before.Bitmaps, 3)

	// Close (flush) and reopen.
	_, ok := c.Flush()
	require.True(t, ok)
	assert.Equal(t, before, c.Persisted())
	r, err := Restore(c.PersistedBytes(), l, testOpts(clk))
	require.NoError(t, err)
	assert.Equal(t, before, r.Current())
	assert.False(t, r.Dirty())
	assert.Equal(t, []int{1, 2, 3}, ackedIndexes(r.AckSet(p[6]), 10))
	assert.Equal(t, []int{3, 4, 5, 6}, ackedIndexes(r.AckSet(p[5]), 10))
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, ackedIndexes(r.AckSet(p[2]), 10))
	assert.True(t, r.IsAcked(p[3]))
	assert.False(t, r.IsAcked(p[4]))

	// Acks continue on the restored cursor, and reach the mark-delete.
	require.True(t, r.AckIndividual(p[2], ackRange(10, 9, 9), 10))
	assert.Equal(t, p[3], r.MarkDelete())
}

// flushAfterInactivity acks four entries in one instant with the mark-delete
// rate limited to 1/s and a 1 s flush interval: only the first is persisted
// at once; the rest must be persisted by the tick after the interval, with
// no further ack.
func flushAfterInactivity(t *testing.T, ack func(c *Cursor, p Position) bool) {
	l, p := tenAcrossLedgers()
	clk := newClock()
	opts := Options{FlushInterval: time.Second, MarkDeleteRate: 1.0, Now: clk.Now}
	c := New(pos(3, -1), l, opts)

	for _, q := range p[:4] {
		require.True(t, ack(c, q))
		c.MaybeFlush() // the topic calls it after processing acks
	}
	assert.Equal(t, p[3], c.MarkDelete())
	assert.Equal(t, p[0], c.Persisted().MarkDelete, "rate limiter lets only the first persist")
	assert.Equal(t, int64(3), c.Stats().RateLimited)
	assert.True(t, c.Dirty())

	clk.Advance(500 * time.Millisecond)
	_, ok := c.MaybeFlush()
	assert.False(t, ok, "interval not passed yet")

	clk.Advance(600 * time.Millisecond)
	_, ok = c.MaybeFlush()
	require.True(t, ok, "the tick after the interval flushes with no further ack")
	assert.False(t, c.Dirty())
	assert.Equal(t, p[3], c.Persisted().MarkDelete)

	r, err := Restore(c.PersistedBytes(), l, opts)
	require.NoError(t, err)
	assert.Equal(t, p[3], r.MarkDelete())

	// Clean cursor: ticks do nothing.
	clk.Advance(time.Hour)
	_, ok = c.MaybeFlush()
	assert.False(t, ok)
}

func TestFlushCursorAfterInactivity(t *testing.T) {
	flushAfterInactivity(t, func(c *Cursor, p Position) bool { return c.AckCumulative(p, nil, 1) })
}

func TestFlushCursorAfterIndividualDeleteInactivity(t *testing.T) {
	flushAfterInactivity(t, func(c *Cursor, p Position) bool { return c.AckIndividual(p, nil, 1) })
}

// twentyAcrossLedgers: 3:0..3:2, 5:0..5:7, 7:0..7:8.
func twentyAcrossLedgers() (*fakeLayout, []Position) {
	l := newLayout([2]int64{3, 3}, [2]int64{5, 8}, [2]int64{7, 9})
	return l, append([]Position(nil), l.pos...)
}

// unackedIndexes lists (as indexes into p) the entries NextUnacked walks.
func unackedIndexes(c *Cursor, p []Position) []int {
	idx := map[Position]int{}
	for i, q := range p {
		idx[q] = i
	}
	var out []int
	q := c.MarkDelete()
	for {
		var ok bool
		if q, ok = c.NextUnacked(q); !ok {
			return out
		}
		out = append(out, idx[q])
	}
}

func TestOutOfOrderDeletePersistenceWithClose(t *testing.T) {
	l, p := twentyAcrossLedgers()
	clk := newClock()
	c := New(pos(3, -1), l, testOpts(clk))
	for _, i := range []int{2, 5, 7, 8, 9} {
		require.True(t, c.AckIndividual(p[i], nil, 1))
	}
	assert.Equal(t, [][2]Position{{p[2], p[2]}, {p[5], p[5]}, {p[7], p[9]}}, c.Current().Ranges)

	// Close: the state is flushed whatever the interval.
	_, ok := c.Flush()
	require.True(t, ok)
	for _, layout := range []Layout{l, walkLayout{l}} {
		r, err := Restore(c.PersistedBytes(), layout, testOpts(clk))
		require.NoError(t, err)
		assert.Equal(t, 20-5, r.Backlog(p[19]))
		assert.Equal(t, []int{0, 1, 3, 4, 6, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, unackedIndexes(r, p))
	}
}

func TestOutOfOrderDeletePersistenceAfterCrash(t *testing.T) {
	l, p := twentyAcrossLedgers()
	clk := newClock()
	c := New(pos(3, -1), l, Options{FlushInterval: time.Second, MarkDeleteRate: 1.0, Now: clk.Now})
	for _, i := range []int{2, 5, 7, 8, 9} {
		require.True(t, c.AckIndividual(p[i], nil, 1))
		c.MaybeFlush()
	}
	clk.Advance(time.Second)
	_, ok := c.MaybeFlush()
	require.True(t, ok)

	// The first ack after a quiet second gets a rate permit and is persisted
	// at once; the following ones are rate limited and the interval has not
	// passed: they are not flushed when the broker crashes.
	require.True(t, c.AckIndividual(p[12], nil, 1))
	_, ok = c.MaybeFlush()
	require.True(t, ok)
	flushed := c.Current()
	for _, i := range []int{0, 1, 13} {
		require.True(t, c.AckIndividual(p[i], nil, 1))
		_, ok = c.MaybeFlush()
		require.False(t, ok)
	}
	assert.Equal(t, p[2], c.MarkDelete())
	assert.True(t, c.Dirty())
	assert.Equal(t, flushed, c.Persisted())

	r, err := Restore(c.PersistedBytes(), l, testOpts(clk))
	require.NoError(t, err)
	assert.Equal(t, flushed, r.Current(), "what was flushed survives")
	assert.True(t, r.IsAcked(p[12]))
	for _, i := range []int{0, 1, 13} {
		assert.False(t, r.IsAcked(p[i]), "what was not flushed is gone: %d", i)
	}
	assert.Equal(t, []int{0, 1, 3, 4, 6, 10, 11, 13, 14, 15, 16, 17, 18, 19}, unackedIndexes(r, p))
}
