package pulsar

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestReconsumeLaterOnAPatternConsumer: a TopicsPattern consumer with
// RetryEnable consumes the retry letter topic beside its pattern's topics,
// named as the official client names it for a pattern
// ("persistent://public/default/-<sub>-RETRY"), so a message of either
// topic given to ReconsumeLater comes back to it, with its real topic.
func TestReconsumeLaterOnAPatternConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topics := []string{"persistent://public/default/rp-a", "persistent://public/default/rp-b"}
		for _, topic := range topics {
			p := testProducer(t, v.c, ProducerOptions{Topic: topic})
			if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(topic)}); err != nil {
				t.Fatal(err)
			}
			p.Close()
		}
		c := v.subscribe(ConsumerOptions{TopicsPattern: "persistent://public/default/rp-.*", SubscriptionName: "my-sub",
			Type: Shared, RetryEnable: true, DLQ: &DLQPolicy{MaxDeliveries: 2}, AutoDiscoveryPeriod: time.Hour})
		const retry = "persistent://public/default/-my-sub" + RetryTopicSuffix
		var first, again []string
		for range 2 {
			m := csRecv(t, c)
			first = append(first, m.Topic())
			// Longer than the broker's delayed-delivery tick (1 s), by
			// which it may deliver a delayed message early, as Pulsar's
			// does: a retry of one second could come at once, ahead of
			// the other topic's first message.
			c.ReconsumeLater(m, 5*time.Second)
		}
		for range 2 {
			m := csRecv(t, c)
			if m.Topic() != retry {
				t.Fatalf("redelivered from %s, want the retry topic %s", m.Topic(), retry)
			}
			again = append(again, m.Properties()[SysPropertyRealTopic])
			if err := c.Ack(m); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(first)
		slices.Sort(again)
		if !slices.Equal(first, topics) || !slices.Equal(again, topics) {
			t.Fatalf("first deliveries from %v, retries of %v; want both %v", first, again, topics)
		}
	})
}
