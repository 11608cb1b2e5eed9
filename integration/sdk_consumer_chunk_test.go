package integration

import (
	"bytes"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar"
)

// sdkClient connects this SDK to the stub over TCP.
func sdkClient(t *testing.T, url string) pulsar.Client {
	t.Helper()
	c, err := pulsar.NewClient(pulsar.ClientOptions{URL: url, OperationTimeout: 10 * time.Second, Logger: sdkLogger()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func sdkSubscribe(t *testing.T, c pulsar.Client, opts pulsar.ConsumerOptions) pulsar.Consumer {
	t.Helper()
	opts.SubscriptionInitialPosition = pulsar.SubscriptionPositionEarliest
	cons, err := c.Subscribe(opts)
	require.NoError(t, err)
	t.Cleanup(cons.Close)
	return cons
}

func sdkReceiveN(t *testing.T, c pulsar.Consumer, n int) []pulsar.Message {
	t.Helper()
	out := make([]pulsar.Message, 0, n)
	for len(out) < n {
		m, err := c.Receive(ctxT(t))
		require.NoError(t, err, "received %d of %d", len(out), n)
		out = append(out, m)
	}
	return out
}

// waitAcked waits until the subscription's cursor has everything through
// last acknowledged and no chunk (or anything else) left behind.
func waitAcked(t *testing.T, b *brokerstub.Broker, topic, sub string, last messageid.MessageID) {
	t.Helper()
	l := messageid.LastChunk(last)
	want := brokerstub.Position{Ledger: l.LedgerID(), Entry: l.EntryID()}
	require.Eventually(t, func() bool {
		cur, _, err := b.Cursor(topic, sub)
		return err == nil && cur.MarkDelete == want && len(cur.Ranges) == 0 && len(cur.BatchAcks) == 0
	}, 10*time.Second, 5*time.Millisecond, "cursor of %s", sub)
}

// TestSDKConsumerReceivesOfficialChunks: chunked messages from the official
// Go client's producer (stub max message size 1 MiB) are received whole by
// this SDK, with the ids the producer returned; acking them leaves no
// chunk behind.
func TestSDKConsumerReceivesOfficialChunks(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 1 << 20})
	topic := newTopic(t)
	prod := chunkedProducer(t, officialClient(t, b.URL()), topic)
	cons := sdkSubscribe(t, sdkClient(t, b.URL()), pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})

	big1, big2 := randomBytes(t, 5<<20), randomBytes(t, 3<<20+17)
	var sent []official.MessageID
	for _, p := range [][]byte{[]byte("small-0"), big1, []byte("small-2"), big2} {
		id, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: p, Key: "k"})
		require.NoError(t, err)
		sent = append(sent, id)
	}
	msgs := sdkReceiveN(t, cons, 4)
	assert.Equal(t, "small-0", string(msgs[0].Payload()))
	assert.True(t, bytes.Equal(big1, msgs[1].Payload()), "5 MiB payload differs")
	assert.Equal(t, "small-2", string(msgs[2].Payload()))
	assert.True(t, bytes.Equal(big2, msgs[3].Payload()), "3 MiB payload differs")
	for i, m := range msgs {
		// Same position (the official producer reports partition 0 and
		// batch index 0 for a plain message on a topic without
		// partitions, the broker -1 and -1).
		assert.Equal(t, [2]int64{sent[i].LedgerID(), sent[i].EntryID()}, [2]int64{m.ID().LedgerID(), m.ID().EntryID()},
			"message %d id %v, producer %v", i, m.ID(), sent[i])
		assert.Equal(t, "k", m.Key())
	}
	_, chunked := msgs[1].ID().(pulsar.ChunkMessageID)
	assert.True(t, chunked, "big message id %T", msgs[1].ID())

	// Ack the chunked ones by the ids the official producer returned,
	// serialized by the official client and read back by this SDK.
	for i, m := range msgs {
		if i%2 == 0 {
			require.NoError(t, cons.Ack(m))
			continue
		}
		id, err := pulsar.DeserializeMessageID(sent[i].Serialize())
		require.NoError(t, err)
		require.NoError(t, cons.AckID(id))
	}
	waitAcked(t, b, topic, "s", msgs[3].ID())
}

// TestSDKChunkIDsSeekOfficialConsumer: a chunk id received by this SDK,
// serialized and deserialized by the official client, seeks the official
// consumer: it resumes right after that whole message (the official
// client reads only the last chunk of the bytes, the position a chunked
// message has, and its seek is exclusive), with nothing of the message
// delivered in pieces. And the official producer's chunk id, serialized
// by it, seeks this SDK's consumer to the whole message (inclusive).
func TestSDKChunkIDsSeekOfficialConsumer(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	topic := newTopic(t)
	// One partition: the official client seeks only ids with partition >= 0.
	require.NoError(t, b.CreatePartitionedTopic(topic, 1))
	oc := officialClient(t, b.URL())
	prod := chunkedProducer(t, oc, topic)
	big := randomBytes(t, 300<<10)
	var sent []official.MessageID
	for _, p := range [][]byte{[]byte("small-0"), big, []byte("small-2")} {
		id, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: p})
		require.NoError(t, err)
		sent = append(sent, id)
	}

	sdk := sdkSubscribe(t, sdkClient(t, b.URL()), pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "sdk",
		StartMessageIDInclusive: true})
	msgs := sdkReceiveN(t, sdk, 3)
	require.True(t, bytes.Equal(big, msgs[1].Payload()))
	sdkChunkID := msgs[1].ID()
	assert.Equal(t, int32(0), sdkChunkID.PartitionIdx())

	ocons, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "off",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	defer ocons.Close()
	for _, m := range receiveN(t, ocons, 3) {
		require.NoError(t, ocons.Ack(m))
	}
	offID, err := official.DeserializeMessageID(sdkChunkID.Serialize())
	require.NoError(t, err)
	assert.Equal(t, sent[1].LedgerID(), offID.LedgerID())
	assert.Equal(t, sent[1].EntryID(), offID.EntryID())
	require.NoError(t, ocons.Seek(offID))
	after := receiveN(t, ocons, 1)
	assert.Equal(t, "small-2", string(after[0].Payload()))
	expectNothing(t, ocons, 200*time.Millisecond)

	// The other way: the official producer's id seeks this SDK's consumer
	// to the whole message.
	for _, m := range msgs {
		require.NoError(t, sdk.Ack(m))
	}
	back, err := pulsar.DeserializeMessageID(sent[1].Serialize())
	require.NoError(t, err)
	require.NoError(t, sdk.Seek(back))
	again := sdkReceiveN(t, sdk, 2)
	assert.True(t, bytes.Equal(big, again[0].Payload()), "whole message after seek")
	assert.Equal(t, "small-2", string(again[1].Payload()))
}
