package brokerstub

import (
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// abortedOn returns how many aborted transactions the topic's transaction
// buffer remembers.
func abortedOn(t *testing.T, b *Broker, topic string) int {
	t.Helper()
	name, err := engine.ParseTopic(topic)
	require.NoError(t, err)
	tp, err := b.eng.GetTopic(name, false)
	require.NoError(t, err)
	n := 0
	require.NoError(t, tp.Call(func() { n = tp.Txn.Aborted() }))
	return n
}

// The aborted transactions a topic remembers are forgotten once retention
// has trimmed the ledger of their abort marker (and every entry of theirs
// with it), as Pulsar's trimExpiredAbortedTxns: the set is bounded by what
// the topic stores, and a restart rebuilds it from what is left.
func TestTxnAbortedSetPrunedByRetention(t *testing.T) {
	b := RunT(t, Options{TransactionCoordinatorEnabled: true, LedgerRolloverEntries: 2,
		Clock: NewFakeClock(ttlT0), DataDir: t.TempDir()})
	pc := dialTxn(t, b)
	topic := "persistent://public/default/txn-prune"
	name := pc.producer(topic, 1)
	for i := range 5 {
		tx := pc.newTxn(60_000)
		receiptOf(t, pc.publish(1, name, uint64(i), "aborted", &tx)) // entry i:0, its marker i:1
		require.Nil(t, pc.endTxn(tx, false).Error)
	}
	n, ledgers := internalStatsOf(t, b, "txn-prune")
	assert.Equal(t, 0, n, "no subscription: every full ledger is trimmed")
	assert.Empty(t, ledgers)
	assert.Equal(t, 0, abortedOn(t, b, topic), "every aborted transaction's entries are gone, and so is the transaction")

	// One more, whose marker stays in the ledger being written.
	tx := pc.newTxn(60_000)
	receiptOf(t, pc.publish(1, name, 5, "aborted", &tx))
	receiptOf(t, pc.publish(1, name, 6, "aborted", &tx)) // fills the ledger: the marker opens the next one
	require.Nil(t, pc.endTxn(tx, false).Error)
	assert.Equal(t, 1, abortedOn(t, b, topic))
	require.NoError(t, b.Restart())
	assert.Equal(t, 1, abortedOn(t, b, topic), "rebuilt from the stored entries")
}
