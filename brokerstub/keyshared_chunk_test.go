package brokerstub

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/internal/proto"
)

// sendChunk stores chunk id of the chunked message uuid (n chunks) with
// partition key key.
func (p *ksProducer) sendChunk(key, uuid string, id, n int32) Position {
	return p.sendMeta(&proto.MessageMetadata{PartitionKey: &key, Uuid: &uuid, ChunkId: &id,
		NumChunksFromMsg: &n, TotalChunkMsgSize: gproto.Int32(n)}, fmt.Sprint("chunk", id))
}

// TestKeySharedChunksStayTogetherWhileRangesMove: c1 has the first chunk
// of a three-chunk message when c2 joins and takes its key. The other
// chunks — and a message of the same key sent between them — still go to
// c1, so that the message can complete; c2 gets the key's next message
// once c1 has acknowledged everything. (No official Pulsar broker pins
// chunks on Key_Shared.)
func TestKeySharedChunksStayTogetherWhileRangesMove(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-chunks"
	key := keysFor(t, 1, []string{"c1"}, "c1", "c2", "c2")[0]
	var chk keyorder.Checker
	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 100)
	p := dialKS(t, b).producer(topic, 1)
	other := dialKS(t, b).producer(topic, 2)
	ch0 := p.sendChunk(key, "m1", 0, 3)
	c2.mustSubscribe(topic, 2, "c2", 100)
	mid := other.Send(key, "between")
	ch1 := p.sendChunk(key, "m1", 1, 3)
	ch2 := p.sendChunk(key, "m1", 2, 3)
	after := other.Send(key, "after")

	got1 := c1.sync(1)
	record(t, &chk, "c1", got1)
	assert.Equal(t, []Position{ch0, mid, ch1, ch2}, positions(got1))
	assert.Empty(t, c2.sync(2), "the key drains at c1")
	st, err := b.KeyShared(topic, "s")
	require.NoError(t, err)
	require.Len(t, st.Consumers[0].DrainingHashes, 1)
	assert.Equal(t, 4, st.Consumers[0].DrainingHashes[0].Unacked)

	for _, pos := range positions(got1) {
		require.NoError(t, chk.Acked("c1", kid(pos)))
	}
	c1.ack(1, positions(got1)...)
	got2 := c2.sync(2)
	record(t, &chk, "c2", got2)
	assert.Equal(t, []Position{after}, positions(got2))
	assert.NoError(t, chk.Err())
}

// TestKeySharedChunkOwnerLeaves: c1 holds the first two chunks of a
// message when it disconnects; c2 gets the message from its first chunk
// on, in order.
func TestKeySharedChunkOwnerLeaves(t *testing.T) {
	b := RunT(t)
	topic := "persistent://public/default/ks-chunk-owner"
	key := keysFor(t, 1, []string{"c1"}, "c1", "c2", "c2")[0]
	c1, c2 := dialKS(t, b), dialKS(t, b)
	c1.mustSubscribe(topic, 1, "c1", 2)
	p := dialKS(t, b).producer(topic, 1)
	ch := []Position{p.sendChunk(key, "m1", 0, 3), p.sendChunk(key, "m1", 1, 3), p.sendChunk(key, "m1", 2, 3)}
	assert.Equal(t, ch[:2], positions(c1.sync(1)))
	c2.mustSubscribe(topic, 2, "c2", 100)
	assert.Empty(t, c2.sync(2))
	require.NoError(t, c1.nc.Close())
	waitConsumers(t, b, topic, 1)
	assert.Equal(t, ch, positions(c2.sync(2)))
}
