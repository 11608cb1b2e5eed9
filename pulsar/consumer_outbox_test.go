package pulsar

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The tests of this file check the consumer's outbox (consumer.Outbox):
// the engines lend their queues to Receive, and a Seek, a Close or a
// switch to Chan takes back what was lent and not received.

// outboxTopic sends n messages "p<partition>-<i>" to each of partitions
// partitions of a new topic (a topic without partitions for 0) and
// returns its name and each partition's payloads in order.
func outboxTopic(t *testing.T, v *csEnv, partitions, n int) (string, map[int][]string) {
	t.Helper()
	topic := csTopic()
	parts := max(1, partitions)
	if partitions > 0 {
		if err := v.b.CreatePartitionedTopic(topic, partitions); err != nil {
			t.Fatal(err)
		}
	}
	sent := map[int][]string{}
	for p := range parts {
		p := p
		prod, err := v.c.CreateProducer(ProducerOptions{Topic: topic, DisableBatching: true,
			MessageRouter: func(*ProducerMessage, TopicMetadata) int { return p }})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			body := fmt.Sprintf("p%d-%d", p, i)
			if _, err := prod.Send(csCtx(t), &ProducerMessage{Payload: []byte(body)}); err != nil {
				t.Fatal(err)
			}
			sent[p] = append(sent[p], body)
		}
		prod.Close()
	}
	return topic, sent
}

// byPartition groups payloads "p<partition>-<i>" by partition, in the
// order received.
func byPartition(t *testing.T, ms []Message) map[int][]string {
	t.Helper()
	got := map[int][]string{}
	for _, m := range ms {
		s := string(m.Payload())
		p, err := strconv.Atoi(strings.TrimPrefix(s[:strings.IndexByte(s, '-')], "p"))
		if err != nil {
			t.Fatalf("payload %q", s)
		}
		got[p] = append(got[p], s)
	}
	return got
}

func lentLen(c Consumer) int { return c.(*consumerImpl).outbox.Len() }

// TestSeekSkipsLentMessages: what the engines lent before a Seek, and
// Receive did not take, is never received after it; every partition
// starts again from its first message, in order.
func TestSeekSkipsLentMessages(t *testing.T) {
	for _, partitions := range []int{0, 4} {
		t.Run(fmt.Sprintf("partitions=%d", partitions), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := newCSEnv(t)
				const n = 10
				topic, sent := outboxTopic(t, v, partitions, n)
				total := n * max(1, partitions)
				c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
				first := csRecvN(t, c, 3)
				synctest.Wait() // every message received by the client and lent
				if got := lentLen(c); got != total-3 {
					t.Fatalf("outbox holds %d messages, want %d: the test would not see a stale one", got, total-3)
				}
				if err := c.Seek(EarliestMessageID()); err != nil {
					t.Fatal(err)
				}
				got := byPartition(t, csRecvN(t, c, total))
				for p, want := range sent {
					if !slices.Equal(got[p], want) {
						t.Errorf("partition %d after Seek: %v, want %v (first received before it: %v)", p, got[p], want, csNames(first))
					}
				}
				csNone(t, c, time.Second)
			})
		})
	}
}

// TestChanAfterReceiveGetsLentMessages: messages lent to Receive reach
// the channel once the application reads Chan, each once and in order.
func TestChanAfterReceiveGetsLentMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		const n = 10
		topic, sent := outboxTopic(t, v, 3, n)
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
		ms := csRecvN(t, c, 4)
		synctest.Wait()
		if lentLen(c) == 0 {
			t.Fatal("nothing lent: the test would not see the switch")
		}
		ch := c.Chan()
		for len(ms) < 3*n {
			select {
			case cm := <-ch:
				ms = append(ms, cm.Message)
			case <-time.After(10 * time.Second):
				t.Fatalf("received %d of %d messages", len(ms), 3*n)
			}
		}
		got := byPartition(t, ms)
		for p, want := range sent {
			if !slices.Equal(got[p], want) {
				t.Errorf("partition %d: %v, want %v", p, got[p], want)
			}
		}
		if l := lentLen(c); l != 0 {
			t.Errorf("outbox holds %d messages after the switch to Chan", l)
		}
		select {
		case cm := <-ch:
			t.Errorf("unexpected message %q", cm.Payload())
		case <-time.After(time.Second):
		}
	})
}

// TestReceiveConcurrentWithSeek receives and acknowledges from several
// goroutines while the consumer seeks back to the start again and again
// (for -race); then, the receivers stopped, one more Seek brings every
// message again, once and in order.
func TestReceiveConcurrentWithSeek(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newCSEnv(t)
		const n = 50
		topic, sent := outboxTopic(t, v, 4, n)
		c := v.subscribe(ConsumerOptions{Topic: topic, Type: Shared})
		ctx, cancel := context.WithCancel(csCtx(t))
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				for {
					m, err := c.Receive(ctx)
					if err != nil {
						return
					}
					_ = c.Ack(m)
				}
			})
		}
		for range 5 {
			if err := c.Seek(EarliestMessageID()); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		wg.Wait()
		if err := c.Seek(EarliestMessageID()); err != nil {
			t.Fatal(err)
		}
		got := byPartition(t, csRecvN(t, c, 4*n))
		for p, want := range sent {
			if !slices.Equal(got[p], want) {
				t.Errorf("partition %d after Seek: %v, want %v", p, got[p], want)
			}
		}
		csNone(t, c, time.Second)
	})
}
