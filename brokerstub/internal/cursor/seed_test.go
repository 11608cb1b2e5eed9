package cursor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedPartialBatchAckSurvivesCrash is apache/pulsar#26498's scenario:
// after the entry before a batch is acknowledged and flushed, acknowledging
// one message of the batch leaves the ranges empty; upstream returns early
// without marking the cursor dirty, so the periodic flush skips it and a
// crash redelivers the acknowledged message. Here the bitmap is persisted.
//
// Protects cursor.go, Cursor.AckIndividual: the "c.changed()" after
// "c.bitmaps.Set(p, res)" (a bitmap-only change marks the cursor dirty).
// The mutation test (brokerstub/seed_mutation_test.go, PULSARGO_MUTATION=1)
// checks that this test fails without it.
func TestSeedPartialBatchAckSurvivesCrash(t *testing.T) {
	l := newLayout([2]int64{3, 2}, [2]int64{5, 1}) // E0=3:0, E1=3:1, E2=5:0
	e0, e1, e2 := pos(3, 0), pos(3, 1), pos(5, 0)
	clk := newClock()
	// The regression shape from upstream: throttle 1/s, flush every 1 s.
	opts := Options{FlushInterval: time.Second, MarkDeleteRate: 1.0, Now: clk.Now}
	c := New(pos(3, -1), l, opts)

	require.True(t, c.AckIndividual(e0, nil, 1))
	_, ok := c.Flush()
	require.True(t, ok)
	require.Equal(t, e0, c.Persisted().MarkDelete)

	// Ack only A (index 0) of E1 = [A, B]: ack_set has only bit 1 set.
	require.True(t, c.AckIndividual(e1, []int64{0b10}, 2))
	assert.Empty(t, c.Current().Ranges, "the ranges stay empty: the upstream early-return case")
	require.True(t, c.Dirty(), "a bitmap-only change must mark the cursor dirty")
	_, ok = c.MaybeFlush()
	assert.False(t, ok, "rate limited and interval not passed: stays dirty")
	assert.Nil(t, c.Persisted().Bitmaps)

	// Tick past the flush interval, no other ack, no close.
	clk.Advance(1500 * time.Millisecond)
	_, ok = c.MaybeFlush()
	require.True(t, ok)
	assert.Equal(t, map[Position][]int64{e1: {0b10}}, c.Persisted().Bitmaps)

	// Crash: restore from the persisted bytes.
	r, err := Restore(c.PersistedBytes(), l, opts)
	require.NoError(t, err)
	assert.Equal(t, []int64{0b10}, r.AckSet(e1), "index 1 unacked, index 0 acked")
	assert.Equal(t, []int{0}, ackedIndexes(r.AckSet(e1), 2))
	assert.False(t, r.IsAcked(e1))
	assert.Equal(t, 1, r.UnackedInEntry(e1, 2))
	assert.Equal(t, e0, r.MarkDelete())
	next, ok := r.NextUnacked(e0)
	require.True(t, ok)
	assert.Equal(t, e1, next)
	assert.Equal(t, 2, r.Backlog(e2))
}
