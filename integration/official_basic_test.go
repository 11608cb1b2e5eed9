package integration

import (
	"fmt"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOfficialProduceConsume drives the official client's producer and
// consumer through the stub, unbatched and batched.
func TestOfficialProduceConsume(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprintf("batched=%v", batched), func(t *testing.T) {
			b := startStub(t)
			client := officialClient(t, b.URL())
			topic := newTopic(t)
			cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
			require.NoError(t, err)
			defer cons.Close()
			prod, err := client.CreateProducer(official.ProducerOptions{
				Topic: topic, DisableBatching: !batched, BatchingMaxPublishDelay: 5 * time.Millisecond,
			})
			require.NoError(t, err)
			defer prod.Close()

			const n = 50
			done := make(chan error, n)
			for i := range n {
				prod.SendAsync(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i), Key: fmt.Sprint(i % 3)},
					func(_ official.MessageID, _ *official.ProducerMessage, err error) { done <- err })
			}
			require.NoError(t, prod.FlushWithCtx(ctxT(t)))
			for range n {
				require.NoError(t, <-done)
			}
			msgs := receiveN(t, cons, n)
			for i, m := range msgs {
				assert.Equal(t, fmt.Sprintf("m-%d", i), string(m.Payload()))
				assert.Equal(t, fmt.Sprint(i%3), m.Key())
				require.NoError(t, cons.Ack(m))
			}
			if batched {
				assert.Greater(t, msgs[n-1].ID().BatchIdx(), int32(-1), "expected batched delivery")
			}
		})
	}
}
