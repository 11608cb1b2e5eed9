package delayed

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

func p(e int64) ledger.Position { return ledger.Position{Ledger: 1, Entry: e} }

func TestTrackerStrict(t *testing.T) {
	tr := New(1000, true)
	const now = 10_000
	assert.False(t, tr.Add(p(0), 0, now), "no delivery time: deliver now")
	assert.False(t, tr.Add(p(1), now, now), "due now: deliver now")
	assert.True(t, tr.Add(p(2), now+500, now))
	assert.True(t, tr.Add(p(3), now+100, now))
	assert.True(t, tr.Add(p(4), now+100, now))
	assert.True(t, tr.Add(p(3), now+100, now), "held already")
	assert.Equal(t, 3, tr.Len())
	next, ok := tr.Next()
	assert.True(t, ok)
	assert.Equal(t, int64(now+100), next)
	assert.Empty(t, tr.Due(now+99))
	assert.Equal(t, []ledger.Position{p(3), p(4)}, tr.Due(now+100))
	assert.False(t, tr.Contains(p(3)))
	assert.True(t, tr.Contains(p(2)))
	assert.Equal(t, []ledger.Position{p(2)}, tr.All())
	tr.Clear()
	_, ok = tr.Next()
	assert.False(t, ok)
}

// TestTrackerTick: not strict, a message due within a tick of now is not
// held, and falls due a tick early (Pulsar's cutoff now + tick).
func TestTrackerTick(t *testing.T) {
	tr := New(1000, false)
	const now = 10_000
	assert.False(t, tr.Add(p(0), now+1000, now))
	assert.True(t, tr.Add(p(1), now+1001, now))
	assert.True(t, tr.Add(p(2), now+5000, now))
	assert.Equal(t, []ledger.Position{p(1)}, tr.Due(now+1))
	assert.Empty(t, tr.Due(now+3999))
	assert.Equal(t, []ledger.Position{p(2)}, tr.Due(now+4000))
}

// TestTrackerDueInPositionOrder: what falls due together comes in position
// order, whatever the delivery times.
func TestTrackerDueInPositionOrder(t *testing.T) {
	tr := New(0, true)
	tr.Add(p(5), 300, 0)
	tr.Add(p(1), 200, 0)
	tr.Add(p(3), 100, 0)
	assert.Equal(t, []ledger.Position{p(1), p(3), p(5)}, tr.Due(300))
}
