package pulsar

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// BenchmarkReceive1KiBPartitions receives the same 1 KiB messages from a
// Shared consumer of one topic and of a topic of many partitions (W6's
// shape), acknowledging each by id: receive across partitions should cost
// no more per message than from one topic. Each run sends receiveMsgs
// messages first (not timed), with the consumer subscribed so that it
// prefetches as W6's does, then times receiving them.
func BenchmarkReceive1KiBPartitions(b *testing.B) {
	const receiveMsgs = 50_000
	for _, partitions := range []int{0, 1000} {
		name := "topic"
		if partitions > 0 {
			name = fmt.Sprintf("partitions=%d", partitions)
		}
		b.Run(name, func(b *testing.B) {
			stub := brokerstub.RunT(b)
			c, err := newClient(ClientOptions{URL: stub.URL(), Dialer: stub.Dial})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			payload := make([]byte, 1024)
			b.ReportAllocs()
			run := 0
			var received, cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				run++
				topic := fmt.Sprintf("persistent://public/default/bench-recv-%d", run)
				if partitions > 0 {
					if err := stub.CreatePartitionedTopic(topic, partitions); err != nil {
						b.Fatal(err)
					}
				}
				cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "bench", Type: Shared,
					SubscriptionInitialPosition: SubscriptionPositionEarliest})
				if err != nil {
					b.Fatal(err)
				}
				p, err := c.CreateProducer(ProducerOptions{Topic: topic, BatchingMaxPublishDelay: 10 * time.Millisecond, MaxPendingMessages: 10_000})
				if err != nil {
					b.Fatal(err)
				}
				for range receiveMsgs {
					p.SendAsync(ctx, &ProducerMessage{Payload: payload}, func(_ MessageID, _ *ProducerMessage, err error) {
						if err != nil {
							b.Error(err)
						}
					})
				}
				if err := p.FlushWithCtx(ctx); err != nil {
					b.Fatal(err)
				}
				p.Close()
				b.StartTimer()
				start, cpuStart := time.Now(), processCPU()
				for range receiveMsgs {
					m, err := cons.Receive(ctx)
					if err != nil {
						b.Fatal(err)
					}
					_ = cons.AckID(m.ID())
				}
				received += time.Since(start)
				cpu += processCPU() - cpuStart
				b.StopTimer()
				cons.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(run*receiveMsgs)/received.Seconds(), "msgs/s")
			b.ReportMetric(float64(received.Nanoseconds())/float64(run*receiveMsgs), "ns/msg")
			// CPU of the process (client and in-process stub) per message:
			// on a shared machine, less noisy than the elapsed time.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(run*receiveMsgs), "cpu-ns/msg")
		})
	}
}
