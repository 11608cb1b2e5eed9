package pulsar

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TestBatchNackRedeliverAck is issue #38's churn-soak failure, made
// deterministic: a batching producer, a consumer that nacks some messages
// of a batch while the rest of it still waits in its receiver queue, and
// then acknowledges everything it receives — the old copies and the
// redelivered ones. Every Ack must succeed (the soak saw "message id
// unknown to this consumer" for the redelivered copies: the first
// delivery's tracking was replaced by the redelivery's, the entry counted
// as acknowledged while copies still sat in the queue, and acks of those
// failed), and the subscription ends with everything acknowledged and
// nothing more to deliver.
func TestBatchNackRedeliverAck(t *testing.T) {
	for name, typ := range map[string]SubscriptionType{"Exclusive": Exclusive, "Failover": Failover,
		"Shared": Shared, "Key_Shared": KeyShared} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n = 8
				v := newCSEnv(t)
				topic := csTopic()
				p := testProducer(t, v.c, ProducerOptions{Topic: topic, BatchingMaxMessages: n,
					BatchingMaxPublishDelay: time.Hour})
				sent := make(chan error, n)
				var last MessageID
				for i := range n {
					p.SendAsync(csCtx(t), &ProducerMessage{Payload: fmt.Appendf(nil, "m%d", i)},
						func(id MessageID, _ *ProducerMessage, err error) {
							last = id // callbacks of one producer run in order
							sent <- err
						})
				}
				for range n {
					if err := <-sent; err != nil {
						t.Fatal(err)
					}
				}
				if last.BatchIdx() != n-1 {
					t.Fatalf("not one batch: last id %v", last)
				}
				c := v.subscribe(ConsumerOptions{Topic: topic, Type: typ,
					NackRedeliveryDelay: time.Second, NackPrecisionBit: new(int64(0))})

				// The first delivery: m0 nacked, m1 acked, m2 nacked a
				// little later (a second redelivery request); m3..m7 stay
				// queued while the redeliveries come.
				m0 := csRecv(t, c)
				c.Nack(m0)
				if err := c.Ack(csRecv(t, c)); err != nil {
					t.Fatalf("ack m1: %v", err)
				}
				time.Sleep(300 * time.Millisecond)
				c.Nack(csRecv(t, c))
				time.Sleep(3 * time.Second)
				synctest.Wait()

				// Everything that arrives is acknowledged; each Ack works.
				seen := map[string]int{}
				for {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					m, err := c.Receive(ctx)
					cancel()
					if err != nil {
						break
					}
					seen[string(m.Payload())]++
					if err := c.Ack(m); err != nil {
						t.Fatalf("ack %v (%q, redelivery count %d): %v", m.ID(), m.Payload(), m.RedeliveryCount(), err)
					}
				}
				// The nacked m0 and m2 once more, m3..m7 once: a copy
				// still queued is not queued twice, m1 (acknowledged) is
				// not delivered again.
				for i := range n {
					if name, want := fmt.Sprintf("m%d", i), boolInt(i != 1); seen[name] != want {
						t.Errorf("%s received %d times after the nacks, want %d (all: %v)", name, seen[name], want, seen)
					}
				}
				v.waitCursor(topic, "s", allAcked(last))
			})
		})
	}
}
