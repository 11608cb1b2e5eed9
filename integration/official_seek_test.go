package integration

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// produce sends n messages "m-0".."m-<n-1>" and returns their ids.
func produce(t *testing.T, p official.Producer, n int) []official.MessageID {
	t.Helper()
	ids := make([]official.MessageID, n)
	for i := range n {
		id, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i)})
		require.NoError(t, err)
		ids[i] = id
	}
	return ids
}

func payloads(msgs []official.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Payload())
	}
	return out
}

func TestOfficialSeekByID(t *testing.T) {
	// Small ledgers, to seek across their boundaries; retention keeps the
	// consumed ones, which Pulsar's default retention would delete.
	b := startStub(t, brokerstub.Options{LedgerRolloverEntries: 3, Retention: brokerstub.Retention{Time: -1, Size: -1}})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	produce(t, prod, 10)
	msgs := receiveN(t, cons, 10)
	for _, m := range msgs {
		require.NoError(t, cons.Ack(m))
	}

	// (The official client refuses ids from its own producer on a topic
	// without partitions: they carry partition -1. Ids of received
	// messages work.)
	require.NoError(t, cons.Seek(msgs[4].ID()))
	// The official client's Seek is exclusive for a plain id: it resumes
	// after the id (and the stub, like Pulsar, resets to it inclusively).
	got := payloads(receiveN(t, cons, 5))
	assert.Equal(t, []string{"m-5", "m-6", "m-7", "m-8", "m-9"}, got)

	// Back to the start: the official client refuses Seek(EarliestMessageID())
	// on a topic without partitions (partition -1), so seek to the first id.
	require.NoError(t, cons.Seek(msgs[0].ID()))
	assert.Equal(t, "m-1", string(receiveN(t, cons, 1)[0].Payload()))
}

func TestOfficialSeekToChunkID(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	client := officialClient(t, b.URL())
	// One partition, so that the id the official producer returns carries
	// partition 0 and the official consumer accepts it for Seek.
	topic := newTopic(t)
	require.NoError(t, b.CreatePartitionedTopic(topic, 1))
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	prod := chunkedProducer(t, client, topic)

	first, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("small-0")})
	require.NoError(t, err)
	_ = first
	big := randomBytes(t, 300<<10)
	chunkID, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: big})
	require.NoError(t, err)
	_, err = prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("small-2")})
	require.NoError(t, err)
	for _, m := range receiveN(t, cons, 3) {
		require.NoError(t, cons.Ack(m))
	}

	// Seeking to the chunk id the producer returned must replay the whole
	// chunked message (the official client seeks its first chunk).
	require.NoError(t, cons.Seek(chunkID))
	msgs := receiveN(t, cons, 2)
	assert.True(t, bytes.Equal(big, msgs[0].Payload()), "chunked message after seek differs")
	assert.Equal(t, "small-2", string(msgs[1].Payload()))
}

func TestOfficialSeekByTime(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	produce(t, prod, 3)
	time.Sleep(20 * time.Millisecond) // publish times are milliseconds
	mark := time.Now()
	time.Sleep(20 * time.Millisecond)
	for i := 3; i < 6; i++ {
		_, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i)})
		require.NoError(t, err)
	}
	for _, m := range receiveN(t, cons, 6) {
		require.NoError(t, cons.Ack(m))
	}
	require.NoError(t, cons.SeekByTime(mark))
	assert.Equal(t, []string{"m-3", "m-4", "m-5"}, payloads(receiveN(t, cons, 3)))
}

func TestOfficialReaders(t *testing.T) {
	// Small ledgers and no subscription: without retention Pulsar would
	// delete every full ledger, so keep them to read across boundaries.
	b := startStub(t, brokerstub.Options{LedgerRolloverEntries: 4, Retention: brokerstub.Retention{Time: -1, Size: -1}})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer prod.Close()
	ids := produce(t, prod, 10)

	read := func(start official.MessageID, inclusive bool, n int) []string {
		t.Helper()
		r, err := client.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: start, StartMessageIDInclusive: inclusive})
		require.NoError(t, err)
		defer r.Close()
		var out []string
		for range n {
			m, err := r.Next(ctxT(t))
			require.NoError(t, err)
			out = append(out, string(m.Payload()))
		}
		return out
	}
	assert.Equal(t, []string{"m-0", "m-1"}, read(official.EarliestMessageID(), false, 2))
	assert.Equal(t, []string{"m-5", "m-6"}, read(ids[4], false, 2), "exclusive start")
	assert.Equal(t, []string{"m-4", "m-5"}, read(ids[4], true, 2), "inclusive start")
	assert.Equal(t, []string{"m-9"}, read(official.LatestMessageID(), true, 1), "inclusive latest is the last message")

	// A reader at latest sees only what comes after it.
	r, err := client.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.LatestMessageID()})
	require.NoError(t, err)
	defer r.Close()
	assert.False(t, r.HasNext())
	_, err = prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("new")})
	require.NoError(t, err)
	m, err := r.Next(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, "new", string(m.Payload()))
}
