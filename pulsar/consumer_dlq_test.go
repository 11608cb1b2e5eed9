package pulsar

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
)

// TestConsumerDLQMovesLargeMessage: a message nacked MaxDeliveries times
// goes to the dead-letter topic whole, although it is larger than the
// broker's max message size (the DLQ producer chunks), and is acknowledged
// on its own topic.
func TestConsumerDLQMovesLargeMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t, brokerstub.Options{MaxMessageSize: 128 << 10})
		topic := csTopic()
		p := v.raw(topic, -1)
		big := csNoise(600<<10, 11)
		id, _, err := p.SendChunked(csCtx(t), big, 100<<10, compress.NONE)
		if err != nil {
			t.Fatal(err)
		}
		dlqTopic := topic + "-DLQ"
		dlq := v.subscribe(ConsumerOptions{Topic: dlqTopic, SubscriptionName: "d"})
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared, NackRedeliveryDelay: 10 * time.Millisecond,
			DLQ: &DLQPolicy{MaxDeliveries: 2, DeadLetterTopic: dlqTopic}})
		for i := range 2 {
			m := csRecv(t, c)
			if m.RedeliveryCount() != uint32(i) {
				t.Fatalf("delivery %d: redelivery count %d", i, m.RedeliveryCount())
			}
			c.Nack(m)
		}
		moved := csRecv(t, dlq)
		csSame(t, moved.Payload(), big)
		if moved.Properties()[PropertyRealTopic] != topic || moved.Properties()[PropertyOriginMessageID] == "" {
			t.Fatalf("properties %v", moved.Properties())
		}
		if _, ok := moved.ID().(ChunkMessageID); !ok {
			t.Fatalf("moved message id %v is not a chunk id", moved.ID())
		}
		v.waitCursor(topic, "s", allAcked(id))
		csNone(t, c, 50*time.Millisecond)
	})
}
