package brokerstub

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
)

// With a data dir, entry bytes beyond Options.EntryCacheSize leave memory
// and are read back from the bbolt file for dispatch; acknowledged ones
// leave at once (once the cursor is persisted), and an unloaded topic
// gives back what it held.
func TestEntryCacheReadsBackFromDataDir(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	const budget = 64 << 10
	b := RunT(t, Options{DataDir: t.TempDir(), EntryCacheSize: budget, Clock: clk})
	topic := "persistent://public/default/entry-cache"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 0)
	p := c.producer(topic, 1)
	var want []string
	for i := range 100 {
		pl := fmt.Sprintf("%04d", i) + strings.Repeat("x", 4<<10)
		p.Send("k", pl)
		want = append(want, pl)
	}
	st := b.eng.EntryCache().Stats()
	require.LessOrEqual(t, st.Size, int64(budget), "slabs over the budget: %+v", st)
	require.Positive(t, st.Evicted)
	c.flow(1, 1000)
	assert.Equal(t, want, payloads(c.sync(1)), "entries read back whole and in order")
	assert.Positive(t, b.eng.EntryCache().Stats().ReadBacks, "no entry came from the data dir")

	require.NoError(t, b.Unload(topic))
	assert.Zero(t, b.eng.EntryCache().Stats().Size, "an unloaded topic still holds cache")
}

// Entries every durable subscription has acknowledged leave memory once the
// cursor is persisted, though their ledger is still being written (not
// trimmed); those still wanted stay.
func TestEntryCacheDropsAcknowledged(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{DataDir: t.TempDir(), EntryCacheSize: 16 << 20, Clock: clk})
	topic := "persistent://public/default/entry-cache-acked"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Shared, 1, 1000)
	p := c.producer(topic, 1)
	var ps []Position
	for i := range 100 {
		ps = append(ps, p.Send("k", fmt.Sprintf("%04d", i)+strings.Repeat("x", 4<<10)))
	}
	require.Len(t, c.sync(1), 100)
	before := b.eng.EntryCache().Stats()
	require.Zero(t, before.Evicted)
	c.ack(1, ps[:90]...)
	c.barrier(1)
	clk.Advance(time.Minute) // the cursor flush persists the mark-delete (if the ack did not)
	c.barrier(1)
	after := b.eng.EntryCache().Stats().Size
	// The slabs of entries 0-89 go; the last (256 KiB of 512) holds 90-99.
	assert.LessOrEqual(t, after, before.Size*3/5, "acknowledged entries stayed in memory")
	// The ten left are still delivered whole after a redelivery.
	c.redeliver(1)
	got := payloads(c.sync(1))
	require.Len(t, got, 10)
	assert.Equal(t, "0090", got[0][:4])
}
