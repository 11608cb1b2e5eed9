package integration

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// TestSDKProducerUnloadMidChunkOfficialConsumer unloads the topic in the
// middle of a chunked message sent by this SDK with batching on: the
// producer re-attaches and sends the rest, and the official consumer
// receives every message whole and in order.
func TestSDKProducerUnloadMidChunkOfficialConsumer(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	topic := newTopic(t)
	off := officialClient(t, b.URL())
	cons, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	defer cons.Close()
	sdk := sdkProducerClient(t, b)
	prod, err := sdk.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true, CompressionType: pulsar.ZSTD,
		BatchingMaxPublishDelay: 5 * time.Millisecond})
	require.NoError(t, err)
	defer prod.Close()

	var sends atomic.Int32
	unloaded := make(chan struct{})
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type == "SEND" && sends.Add(1) == 6 {
			go func() {
				assert.NoError(t, b.Unload(topic))
				close(unloaded)
			}()
			<-unloaded // the sixth send reaches the broker after the unload
		}
		return brokerstub.Action{}
	})
	msgs := []*pulsar.ProducerMessage{
		{Payload: []byte("a")}, {Payload: sdkProducerPayload(1<<20, 3)}, {Payload: []byte("b")},
		{Payload: sdkProducerPayload(300<<10, 4)}, {Payload: []byte("c")},
	}
	sdkProduceAll(t, prod, msgs)
	<-unloaded
	// The unload also makes the broker redeliver what the consumer had not
	// acknowledged yet: skip ids already seen.
	seen := map[string]bool{}
	var got []official.Message
	for len(got) < len(msgs) {
		m := receiveN(t, cons, 1)[0]
		require.NoError(t, cons.Ack(m))
		key := fmt.Sprintf("%s/%d", m.ID(), m.ID().BatchIdx())
		if !seen[key] {
			seen[key] = true
			got = append(got, m)
		}
	}
	for i, m := range got {
		require.True(t, bytes.Equal(msgs[i].Payload, m.Payload()), "message %d: %d bytes", i, len(m.Payload()))
	}
	assert.GreaterOrEqual(t, prod.Stats().Reconnects, uint64(1))
}
