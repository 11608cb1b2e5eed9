package cursor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaults(t *testing.T) {
	d := DefaultOptions()
	assert.Equal(t, 60*time.Second, d.FlushInterval)
	assert.Equal(t, 1.0, d.MarkDeleteRate)
	assert.Equal(t, 10000, d.MaxRanges)
	assert.Equal(t, 10000, d.MaxBatchIndexes)
	assert.NotNil(t, d.Now)

	c := New(pos(3, -1), newLayout([2]int64{3, 1}), Options{})
	assert.Equal(t, DefaultFlushInterval, c.opts.FlushInterval)
	assert.Equal(t, 0.0, c.opts.MarkDeleteRate, "zero rate = unlimited")
	assert.Nil(t, c.limiter)
	assert.Equal(t, DefaultMaxRanges, c.opts.MaxRanges)
	assert.Equal(t, DefaultMaxBatchIndexes, c.opts.MaxBatchIndexes)
	assert.False(t, c.Dirty(), "a new cursor starts clean")
	assert.Equal(t, State{MarkDelete: pos(3, -1)}, c.Persisted())
}

func TestNoOpAcksDoNotDirty(t *testing.T) {
	l, p := tenAcrossLedgers()
	c := New(pos(3, -1), l, testOpts(newClock()))
	require.True(t, c.AckIndividual(p[0], nil, 1))
	require.True(t, c.AckIndividual(p[3], nil, 1))
	require.True(t, c.AckIndividual(p[5], unackedSet(4, 1), 4))
	_, ok := c.Flush()
	require.True(t, ok)

	assert.False(t, c.AckIndividual(p[0], nil, 1), "behind mark-delete")
	assert.False(t, c.AckIndividual(p[0], unackedSet(4, 1), 4), "behind mark-delete")
	assert.False(t, c.AckIndividual(p[3], nil, 1), "already in a range")
	assert.False(t, c.AckIndividual(p[3], unackedSet(4), 4), "already in a range")
	assert.False(t, c.AckIndividual(p[5], unackedSet(4, 1), 4), "index already acked")
	assert.False(t, c.AckIndividual(p[6], unackedSet(4), 4), "nothing acked")
	assert.False(t, c.AckIndividual(pos(4, 0), nil, 1), "no such position")
	assert.False(t, c.AckIndividual(pos(5, 99), nil, 1), "beyond the end")
	assert.False(t, c.AckIndividual(p[7], []int64{0}, 0), "ackSet with no batch size")
	assert.False(t, c.AckCumulative(p[0], nil, 1), "behind mark-delete")
	assert.False(t, c.AckCumulative(pos(4, 0), nil, 1), "no such position")
	assert.False(t, c.AckCumulative(p[6], []int64{0}, 0), "ackSet with no batch size")
	assert.False(t, c.AckCumulative(p[1], unackedSet(4), 4), "nothing new: p[0] is the mark-delete")
	assert.False(t, c.Dirty())
	_, ok = c.Flush()
	assert.False(t, ok)
	_, ok = c.MaybeFlush()
	assert.False(t, ok)
}

func TestAckSetValidation(t *testing.T) {
	l, p := tenAcrossLedgers()
	c := New(pos(3, -1), l, testOpts(newClock()))

	// Bits beyond the batch size are ignored: this ack acknowledges index 0.
	require.True(t, c.AckIndividual(p[1], []int64{-2, -1, -1}, 3))
	assert.Equal(t, []int64{0b110}, c.AckSet(p[1]))
	assert.Equal(t, 2, c.UnackedInEntry(p[1], 3))

	// Missing words mean acknowledged (Java BitSet.and): a one-word ack_set
	// on a 100-message batch acknowledges indexes 64..99.
	require.True(t, c.AckIndividual(p[2], []int64{-1}, 100))
	assert.Equal(t, []int64{-1}, c.AckSet(p[2]))
	assert.Equal(t, 64, c.UnackedInEntry(p[2], 100))

	// An empty ack_set acknowledges the whole entry.
	require.True(t, c.AckIndividual(p[3], []int64{}, 5))
	assert.True(t, c.IsAcked(p[3]))

	// A claimed huge batch size allocates nothing by that claim.
	huge := 1 << 40
	allocs := testing.AllocsPerRun(10, func() {
		c.AckIndividual(p[4], []int64{-2}, huge)
	})
	assert.LessOrEqual(t, allocs, 2.0)
	assert.Len(t, c.AckSet(p[4]), 1)
	assert.Equal(t, 63, c.UnackedInEntry(p[4], huge))

	// AckSet is a copy.
	w := c.AckSet(p[1])
	w[0] = 0
	assert.Equal(t, []int64{0b110}, c.AckSet(p[1]))
	assert.Nil(t, c.AckSet(p[0]), "no partial bitmap")
	assert.Nil(t, c.AckSet(p[3]), "fully acked")
}

func TestReset(t *testing.T) {
	l, p := tenAcrossLedgers()
	clk := newClock()
	c := New(pos(3, -1), l, Options{FlushInterval: time.Minute, MarkDeleteRate: 1, Now: clk.Now})
	for _, i := range []int{0, 1, 4, 6} {
		c.AckIndividual(p[i], nil, 1)
	}
	c.AckIndividual(p[7], unackedSet(4, 0), 4)
	_, ok := c.Flush()
	require.True(t, ok)

	// Seek back to p[3] (the first entry of ledger 5): mark-delete = 3:2.
	c.Reset(p[3], nil)
	assert.Equal(t, p[2], c.MarkDelete())
	assert.Equal(t, State{MarkDelete: p[2]}, c.Current())
	assert.True(t, c.Dirty())
	_, ok = c.MaybeFlush()
	assert.True(t, ok, "a reset is persisted at once, not rate limited")

	// Reset to the same place still marks dirty.
	c.Reset(p[3], nil)
	assert.True(t, c.Dirty())

	// Batch-index seek: indexes [0, 2) of p[5] acknowledged.
	c.Reset(p[5], unackedSet(4, 0, 1))
	assert.Equal(t, p[4], c.MarkDelete())
	assert.Equal(t, []int{0, 1}, ackedIndexes(c.AckSet(p[5]), 4))
	assert.Equal(t, 2, c.UnackedInEntry(p[5], 4))
	assert.True(t, c.AckIndividual(p[5], unackedSet(4, 2, 3), 4))
	assert.Equal(t, p[5], c.MarkDelete())

	// An all-zero seek ack_set means the whole entry.
	c.Reset(p[6], []int64{0})
	assert.Equal(t, p[6], c.MarkDelete())

	// Seek to the first entry: before the first entry.
	c.Reset(p[0], nil)
	assert.False(t, c.IsAcked(p[0]))
	q, ok := c.NextUnacked(c.MarkDelete())
	require.True(t, ok)
	assert.Equal(t, p[0], q)
	assert.Equal(t, 10, c.Backlog(p[9]))

	// Seek past the end (latest): everything is acknowledged.
	c.Reset(pos(5, 7), nil)
	assert.Equal(t, p[9], c.MarkDelete())
	_, ok = c.NextUnacked(c.MarkDelete())
	assert.False(t, ok)
	assert.Equal(t, 0, c.Backlog(p[9]))
}

func TestBacklogAndNextUnacked(t *testing.T) {
	l, p := twentyAcrossLedgers()
	for _, layout := range []Layout{l, walkLayout{l}} {
		c := New(pos(3, -1), layout, Options{})
		for _, i := range []int{0, 2, 3, 4, 9, 10, 11, 15} {
			c.AckIndividual(p[i], nil, 1)
		}
		c.AckIndividual(p[12], unackedSet(3, 1), 3)
		assert.Equal(t, p[0], c.MarkDelete())
		assert.Equal(t, 20-8, c.Backlog(p[19]))
		assert.Equal(t, 1, c.Backlog(p[1]), "p[1]")
		assert.Equal(t, 5, c.Backlog(p[8]), "p[1], p[5..8]")
		assert.Equal(t, 0, c.Backlog(p[0]))
		assert.Equal(t, 1, c.Backlog(p[4]))
		assert.Equal(t, []int{1, 5, 6, 7, 8, 12, 13, 14, 16, 17, 18, 19}, unackedIndexes(c, p))
		q, ok := c.NextUnacked(p[8])
		require.True(t, ok)
		assert.Equal(t, p[12], q, "skips the range 9..11 across a ledger boundary")
		_, ok = c.NextUnacked(p[19])
		assert.False(t, ok)
	}
}

func TestRateLimiter(t *testing.T) {
	clk := newClock()
	r := newRateLimiter(2)
	assert.True(t, r.tryAcquire(clk.Now()), "the first acquire is free")
	assert.False(t, r.tryAcquire(clk.Now()))
	clk.Advance(500 * time.Millisecond)
	assert.True(t, r.tryAcquire(clk.Now()))
	assert.False(t, r.tryAcquire(clk.Now()))
	// Idle for long: one second's worth of permits (2) are stored.
	clk.Advance(10 * time.Second)
	assert.True(t, r.tryAcquire(clk.Now()))
	assert.True(t, r.tryAcquire(clk.Now()))
	assert.True(t, r.tryAcquire(clk.Now()))
	assert.False(t, r.tryAcquire(clk.Now()))
	assert.True(t, newRateLimiter(0).tryAcquire(clk.Now()), "nil = unlimited")
}

func TestNegativeFlushIntervalDisablesPeriodicFlush(t *testing.T) {
	l, p := tenAcrossLedgers()
	clk := newClock()
	c := New(pos(3, -1), l, Options{FlushInterval: -1, MarkDeleteRate: 1, Now: clk.Now})
	c.AckIndividual(p[0], nil, 1)
	c.AckIndividual(p[1], nil, 1) // rate limited
	_, ok := c.MaybeFlush()
	require.True(t, ok, "the first ack got a permit")
	c.AckIndividual(p[2], nil, 1)
	_, ok = c.MaybeFlush()
	require.False(t, ok)
	clk.Advance(time.Hour)
	_, ok = c.MaybeFlush()
	assert.False(t, ok)
	assert.True(t, c.Dirty(), "never silently dropped: still dirty")
	_, ok = c.Flush()
	assert.True(t, ok)
}

func TestTruncationReported(t *testing.T) {
	l, p := twentyAcrossLedgers()
	clk := newClock()
	opts := Options{MaxRanges: 3, MaxBatchIndexes: 2, Now: clk.Now}
	c := New(pos(3, -1), l, opts)
	for _, i := range []int{2, 4, 6, 8, 10} { // 5 ranges
		c.AckIndividual(p[i], nil, 1)
	}
	for _, i := range []int{11, 13, 15, 17} { // 4 bitmaps
		c.AckIndividual(p[i], unackedSet(2, 0), 2)
	}
	_, ok := c.Flush()
	require.True(t, ok)
	st := c.Stats()
	assert.True(t, st.Truncated)
	assert.Equal(t, 5, st.Ranges)
	assert.Equal(t, 4, st.BatchEntries)
	assert.Equal(t, 3, st.PersistedRanges)
	assert.Equal(t, 2, st.PersistedBatchEntries)
	assert.Equal(t, int64(1), st.Flushes)
	assert.Equal(t, clk.Now(), st.LastFlush)

	ps := c.Persisted()
	assert.Equal(t, [][2]Position{{p[2], p[2]}, {p[4], p[4]}, {p[6], p[6]}}, ps.Ranges, "nearest to mark-delete kept")
	assert.Len(t, ps.Bitmaps, 2)
	assert.Contains(t, ps.Bitmaps, p[11])
	assert.Contains(t, ps.Bitmaps, p[13])

	// After a crash the truncated acks are redelivered, never lost the
	// other way: nothing unacknowledged becomes acknowledged.
	r, err := Restore(c.PersistedBytes(), l, opts)
	require.NoError(t, err)
	assert.True(t, r.Stats().Truncated)
	assert.False(t, r.IsAcked(p[8]))
	assert.Nil(t, r.AckSet(p[15]))
	assert.Equal(t, []int{0}, ackedIndexes(r.AckSet(p[11]), 2))

	// Once the state fits again the flag clears.
	c.AckCumulative(p[15], nil, 1)
	_, ok = c.Flush()
	require.True(t, ok)
	assert.False(t, c.Stats().Truncated)
}

func TestRestoreNormalizes(t *testing.T) {
	// A state persisted under a layout where 3:2 and 7:0 were not adjacent
	// (ledger 5 existed and was later trimmed) merges on restore.
	old := newLayout([2]int64{3, 3}, [2]int64{5, 1}, [2]int64{7, 2})
	c := New(pos(3, 0), old, Options{})
	c.AckIndividual(pos(3, 2), nil, 1)
	c.AckIndividual(pos(7, 0), nil, 1)
	c.AckIndividual(pos(7, 1), unackedSet(2, 0), 2)
	b, ok := c.Flush()
	require.True(t, ok)

	trimmed := newLayout([2]int64{3, 3}, [2]int64{7, 2})
	r, err := Restore(b, trimmed, Options{})
	require.NoError(t, err)
	assert.Equal(t, [][2]Position{{pos(3, 2), pos(7, 0)}}, r.Current().Ranges)
	assert.True(t, r.Dirty(), "normalization is a change")
	r.AckIndividual(pos(3, 1), nil, 1)
	assert.Equal(t, pos(7, 0), r.MarkDelete())
	assert.Equal(t, []int{0}, ackedIndexes(r.AckSet(pos(7, 1)), 2))

	// Unchanged state restores clean.
	r2, err := Restore(b, old, Options{})
	require.NoError(t, err)
	assert.False(t, r2.Dirty())
	assert.Equal(t, c.Current(), r2.Current())
}
