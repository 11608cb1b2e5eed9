package integration

import (
	"math"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/messageid"
)

// TestMessageIDBytesMatchOfficialClient: for plain and batched ids our
// Serialize writes the official client's bytes exactly, and each side reads
// the other's.
func TestMessageIDBytesMatchOfficialClient(t *testing.T) {
	cases := []struct {
		ledger, entry     int64
		batch, part, size int32
	}{
		{1, 2, -1, -1, 0},
		{1, 2, 3, 4, 0},
		{math.MaxInt32 + 7, 1 << 40, 0, 0, 0},
		{-1, -1, -1, -1, 0},
		{math.MaxInt64, math.MaxInt64, -1, -1, 0},
	}
	for _, c := range cases {
		theirs := official.NewMessageID(c.ledger, c.entry, c.batch, c.part)
		ours := messageid.New(c.ledger, c.entry, c.batch, c.part, c.size)
		assert.Equal(t, theirs.Serialize(), ours.Serialize(), "bytes of %s", ours)

		fromTheirs, err := messageid.Deserialize(theirs.Serialize())
		require.NoError(t, err)
		assert.Equal(t, ours, fromTheirs)

		fromOurs, err := official.DeserializeMessageID(ours.Serialize())
		require.NoError(t, err)
		assertSameID(t, ours, fromOurs)
	}
	// The well-known ids mean the same on both sides.
	assert.Equal(t, official.EarliestMessageID().Serialize(), messageid.Earliest().Serialize())
	assert.Equal(t, official.LatestMessageID().Serialize(), messageid.Latest().Serialize())
}

// TestChunkIDReadByOfficialClient: the official client reads our chunk id
// (it keeps only the last chunk: its documented loss), and a chunk id that
// went through its bytes back to us keeps the first chunk.
func TestChunkIDReadByOfficialClient(t *testing.T) {
	id := messageid.NewChunk(messageid.New(5, 10, -1, 2, 0), messageid.New(5, 14, -1, 2, 0))
	theirs, err := official.DeserializeMessageID(id.Serialize())
	require.NoError(t, err)
	assertSameID(t, id.LastChunkID(), theirs)

	back, err := messageid.Deserialize(id.Serialize())
	require.NoError(t, err)
	assert.Equal(t, id, back)
}

func assertSameID(t *testing.T, ours messageid.MessageID, theirs official.MessageID) {
	t.Helper()
	assert.Equal(t, ours.LedgerID(), theirs.LedgerID())
	assert.Equal(t, ours.EntryID(), theirs.EntryID())
	assert.Equal(t, ours.BatchIdx(), theirs.BatchIdx())
	assert.Equal(t, ours.PartitionIdx(), theirs.PartitionIdx())
	assert.Equal(t, ours.BatchSize(), theirs.BatchSize())
}
