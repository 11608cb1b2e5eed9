package integration

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// chunkedProducer returns an official producer with chunking on, as the
// official client requires: batching off.
func chunkedProducer(t *testing.T, client official.Client, topic string) official.Producer {
	t.Helper()
	p, err := client.CreateProducer(official.ProducerOptions{
		Topic: topic, EnableChunking: true, DisableBatching: true, ChunkMaxMessageSize: 0,
	})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

// TestOfficialChunking sends a 10 MiB message through a stub whose max
// message size is 1 MiB; the official client chunks it and reassembles it.
func TestOfficialChunking(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 1 << 20})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	prod := chunkedProducer(t, client, topic)

	big := randomBytes(t, 10<<20)
	id, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: big})
	require.NoError(t, err)
	small, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("after")})
	require.NoError(t, err)

	msgs := receiveN(t, cons, 2)
	assert.True(t, bytes.Equal(big, msgs[0].Payload()), "10 MiB payload differs")
	assert.Equal(t, id.String(), msgs[0].ID().String())
	assert.Equal(t, "after", string(msgs[1].Payload()))
	assert.Equal(t, small.String(), msgs[1].ID().String())
	require.NoError(t, cons.Ack(msgs[0]))
	require.NoError(t, cons.Ack(msgs[1]))
}

// TestOfficialSharedChunksStayTogether: with several Shared consumers and
// chunked messages interleaved from two producers, every message arrives
// whole at exactly one consumer.
func TestOfficialSharedChunksStayTogether(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	var consumers []official.Consumer
	for range 3 {
		c, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
			Type: official.Shared, ReceiverQueueSize: 4})
		require.NoError(t, err)
		t.Cleanup(c.Close)
		consumers = append(consumers, c)
	}
	p1, p2 := chunkedProducer(t, client, topic), chunkedProducer(t, client, topic)
	const n = 12
	want := map[string]bool{}
	errs := make(chan error, 2*n)
	for i := range n {
		for _, p := range []official.Producer{p1, p2} {
			payload := randomBytes(t, 200<<10)
			want[string(payload)] = true
			p.SendAsync(ctxT(t), &official.ProducerMessage{Payload: payload},
				func(_ official.MessageID, _ *official.ProducerMessage, err error) { errs <- err })
		}
		_ = i
	}
	for range 2 * n {
		require.NoError(t, <-errs)
	}
	got := map[string]bool{}
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < 2*n && time.Now().Before(deadline) {
		for _, c := range consumers {
			select {
			case cm := <-c.Chan():
				assert.True(t, want[string(cm.Payload())], "unknown or corrupt payload")
				assert.False(t, got[string(cm.Payload())], "duplicate")
				got[string(cm.Payload())] = true
				require.NoError(t, c.Ack(cm))
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	assert.Len(t, got, 2*n)
}
