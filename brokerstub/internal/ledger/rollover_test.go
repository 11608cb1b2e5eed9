package ledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// TestRolloverRules: the rules of currentLedgerIsFull, one by one: entries,
// bytes and age close a ledger after an append; the minimum age holds a
// full one open; RollIfFull and RollIfInactive close one between appends;
// an empty ledger is never closed by them.
func TestRolloverRules(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	start := func(o Options) (*Ledger, *clock) {
		c := &clock{now: t0}
		o.Now = c.Now
		return open(t, store.NewMemory(), o), c
	}
	t.Run("entries", func(t *testing.T) {
		l, _ := start(Options{RolloverEntries: 2})
		p := appendN(t, l, 3, nil)
		assert.Equal(t, p[0].Ledger, p[1].Ledger)
		assert.Less(t, p[1].Ledger, p[2].Ledger)
	})
	t.Run("size", func(t *testing.T) {
		l, _ := start(Options{MaxSize: 1})
		p := appendN(t, l, 2, nil)
		assert.Less(t, p[0].Ledger, p[1].Ledger)
	})
	t.Run("max age", func(t *testing.T) {
		l, c := start(Options{MaxRolloverTime: time.Minute})
		assert.False(t, l.RollIfFull(c.now.Add(time.Hour)), "no entries: kept")
		p := appendN(t, l, 1, nil)
		c.now = c.now.Add(59 * time.Second)
		assert.False(t, l.RollIfFull(c.now))
		c.now = c.now.Add(time.Second)
		assert.True(t, l.RollIfFull(c.now))
		assert.True(t, l.Closed())
		assert.Less(t, p[0].Ledger, appendN(t, l, 1, nil)[0].Ledger)
	})
	t.Run("min age", func(t *testing.T) {
		l, c := start(Options{RolloverEntries: 1, MinRolloverTime: time.Minute})
		p := appendN(t, l, 2, nil)
		assert.Equal(t, p[0].Ledger, p[1].Ledger, "full, but younger than a minute")
		assert.False(t, l.RollIfFull(c.now))
		c.now = c.now.Add(time.Minute + time.Millisecond)
		assert.True(t, l.RollIfFull(c.now))
		assert.Less(t, p[1].Ledger, appendN(t, l, 1, nil)[0].Ledger)
	})
	t.Run("inactive", func(t *testing.T) {
		l, c := start(Options{})
		assert.False(t, l.RollIfInactive(c.now.Add(time.Hour), time.Minute), "no entries: kept")
		appendN(t, l, 1, nil)
		c.now = c.now.Add(time.Minute)
		assert.False(t, l.RollIfInactive(c.now, time.Minute), "exactly a minute")
		assert.True(t, l.RollIfInactive(c.now.Add(time.Millisecond), time.Minute))
	})
}
