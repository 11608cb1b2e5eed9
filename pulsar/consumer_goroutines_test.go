package pulsar

import (
	"fmt"
	"testing"
	"testing/synctest"
)

// TestConsumerPartitionsHoldNoGoroutines: a consumer of a topic with many
// partitions holds goroutines per connection, not per partition, at rest
// (issue #35: one loop goroutine per partition before, 1,006 for 1,000
// partitions). Every message still arrives and is acknowledged, also
// after a partition's consumer lost its connection and re-subscribed, and
// after Close nothing of the consumer is left running.
func TestConsumerPartitionsHoldNoGoroutines(t *testing.T) {
	const partitions = 200
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		topic := csTopic()
		if err := v.b.CreatePartitionedTopic(topic, partitions); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		p := testProducer(t, v.c, ProducerOptions{Topic: topic, DisableBatching: true})
		synctest.Wait()
		before := clientGoroutines(t)
		c, err := v.c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: Shared})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if grown := clientGoroutines(t) - before; grown > partitions/10 {
			t.Fatalf("a consumer of %d partitions holds %d goroutines at rest, want at most %d (per connection, not per partition)", partitions, grown, partitions/10)
		}
		receiveAll := func(n int) {
			t.Helper()
			for i := range n {
				if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte(fmt.Sprint(i)), Key: fmt.Sprint("k", i)}); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
			}
			for i := range n {
				m, err := c.Receive(csCtx(t))
				if err != nil {
					t.Fatalf("receive %d of %d: %v", i, n, err)
				}
				if err := c.Ack(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		receiveAll(partitions)
		synctest.Wait()
		if grown := clientGoroutines(t) - before; grown > partitions/10 {
			t.Fatalf("after receiving, the consumer holds %d goroutines at rest, want at most %d", grown, partitions/10)
		}
		// A lost connection: the partition's consumer re-subscribes, then
		// lets its goroutine go again.
		if err := v.b.Unload(topic + "-partition-0"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		receiveAll(partitions)
		synctest.Wait()
		if grown := clientGoroutines(t) - before; grown > partitions/10 {
			t.Fatalf("after a reconnect the consumer holds %d goroutines at rest, want at most %d", grown, partitions/10)
		}
		c.Close()
		synctest.Wait()
		if grown := clientGoroutines(t) - before; grown > 0 {
			t.Fatalf("%d goroutines left running after Close", grown)
		}
	})
}
