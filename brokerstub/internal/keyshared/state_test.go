package keyshared

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

func TestReplayKeepsOrderAndHashes(t *testing.T) {
	var r Replay
	p := func(e int64) ledger.Position { return ledger.Position{Ledger: 1, Entry: e} }
	assert.True(t, r.Add(p(5), 7))
	assert.True(t, r.Add(p(2), 7))
	assert.True(t, r.Add(p(9), 0))
	assert.False(t, r.Add(p(5), 8), "already queued")
	require.Equal(t, 3, r.Len())
	first, _ := r.First()
	assert.Equal(t, p(2), first)
	got, h := r.At(1)
	assert.Equal(t, p(5), got)
	assert.Equal(t, int32(7), h)
	assert.True(t, r.Remove(p(2)))
	got, h = r.At(0)
	assert.Equal(t, p(5), got)
	assert.Equal(t, int32(7), h)
	assert.True(t, r.Remove(p(5)))
	assert.False(t, r.Remove(p(5)))
	assert.True(t, r.Contains(p(9)))
	r.Clear()
	assert.Equal(t, 0, r.Len())
	_, ok := r.First()
	assert.False(t, ok)
}

func TestDraining(t *testing.T) {
	d := NewDraining()
	assert.True(t, d.Set(1, 100, 2))
	assert.False(t, d.Set(2, 100, 1), "draining at another consumer")
	assert.False(t, d.Add(2, 100))
	assert.True(t, d.ShouldBlock(2, 100))
	assert.True(t, d.ShouldBlock(3, 100))
	assert.Equal(t, []DrainingHash{{Hash: 100, Unacked: 2, Blocked: 2}}, d.Of(1))
	assert.False(t, d.Reduce(2, 100), "not the holder")
	assert.False(t, d.Reduce(1, 100))
	assert.True(t, d.Reduce(1, 100), "last entry acknowledged")
	assert.False(t, d.ShouldBlock(2, 100))
	assert.Equal(t, 0, d.Len())

	// A hash that comes back to its holder stops draining when the holder
	// is offered it again, as Pulsar's shouldBlockStickyKeyHash.
	d.Set(1, 200, 3)
	assert.False(t, d.ShouldBlock(1, 200))
	_, ok := d.Holder(200)
	assert.False(t, ok)

	// Setting again counts what the holder really holds (no double count).
	d.Set(1, 300, 2)
	d.Set(1, 300, 2)
	d.Reduce(1, 300)
	assert.True(t, d.Reduce(1, 300))

	d.Set(1, 400, 1)
	d.Set(2, 500, 1)
	d.RemoveConsumer(1)
	assert.Nil(t, d.Of(1))
	h, ok := d.Holder(500)
	assert.True(t, ok)
	assert.Equal(t, ConsumerID(2), h)
	assert.True(t, d.Set(1, HashNotSet, 1), "hash 0 is never tracked")
	assert.False(t, d.ShouldBlock(2, HashNotSet))
	d.Clear()
	assert.Equal(t, 0, d.Len())
}

func TestLookAheadLimit(t *testing.T) {
	for _, c := range []struct {
		perC, perS, consumers, want int
	}{
		{0, 0, 1, 2000},
		{0, 0, 3, 6000},
		{0, 0, 20, 20000},
		{10, 0, 3, 30},
		{10, 25, 3, 25},
		{-1, 50, 3, 50},
		{10, -1, 3, 30},
		{-1, -1, 3, int(^uint(0) >> 1)},
	} {
		k := NewKeyShared(Config{LookAheadPerConsumer: c.perC, LookAheadPerSubscription: c.perS}, &Replay{})
		for i := range c.consumers {
			require.NoError(t, k.Add(Member{ID: ConsumerID(i + 1), Name: "c", Permits: func() int64 { return 0 }}))
		}
		assert.Equal(t, c.want, k.LookAheadLimit(), "%+v", c)
	}
}
