package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub/keyorder"
)

// ksConsumer is an official Key_Shared consumer whose application loop
// logs every message it receives and acknowledges to a keyorder checker.
type ksConsumer struct {
	label  string
	c      official.Consumer
	cancel context.CancelFunc
	done   chan struct{}
}

func ksID(id official.MessageID) keyorder.ID {
	return keyorder.ID{Ledger: id.LedgerID(), Entry: id.EntryID(), Batch: id.BatchIdx()}
}

// startKeySharedConsumer subscribes and runs the application loop: receive
// and record, work for a moment, and acknowledge (and record) late — up to
// three messages stay unacknowledged, so that keys drain when consumers
// join and are redelivered when they leave.
func startKeySharedConsumer(t *testing.T, client official.Client, topic, name, label string, seed uint64,
	chk *keyorder.Checker, done func(payload string)) *ksConsumer {
	t.Helper()
	c, err := client.Subscribe(official.ConsumerOptions{
		Topic: topic, SubscriptionName: "s", Type: official.KeyShared, Name: name,
		ReceiverQueueSize: 10, SubscriptionInitialPosition: official.SubscriptionPositionEarliest,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	k := &ksConsumer{label: label, c: c, cancel: cancel, done: make(chan struct{})}
	t.Cleanup(func() { cancel(); <-k.done })
	rng := rand.New(rand.NewPCG(seed, 7))
	var held []official.Message // received, not acknowledged yet
	ack := func(m official.Message) bool {
		if err := c.Ack(m); err != nil {
			t.Errorf("ack: %v", err)
			return false
		}
		_ = chk.Acked(label, ksID(m.ID()))
		done(string(m.Payload()))
		return true
	}
	go func() {
		defer close(k.done)
		for {
			rctx, rcancel := context.WithTimeout(ctx, 50*time.Millisecond)
			m, err := c.Receive(rctx)
			rcancel()
			if ctx.Err() != nil {
				return // stopped: what is held stays unacknowledged
			}
			if err != nil {
				// Idle: acknowledge what is held, so that everything drains.
				for _, h := range held {
					if !ack(h) {
						return
					}
				}
				held = nil
				continue
			}
			if err := chk.Received(label, m.Key(), ksID(m.ID())); err != nil {
				t.Errorf("%v", err)
			}
			time.Sleep(time.Duration(rng.IntN(1000)) * time.Microsecond)
			// Acknowledge late: keep up to three messages unacknowledged.
			held = append(held, m)
			for keep := rng.IntN(4); len(held) > keep; held = held[1:] {
				if !ack(held[0]) {
					return
				}
			}
		}
	}()
	return k
}

// stop ends the application loop, records that the consumer is gone (what
// it held unacknowledged is owed to the next consumers of its keys) and
// closes it.
func (k *ksConsumer) stop(t *testing.T, chk *keyorder.Checker) {
	t.Helper()
	k.cancel()
	<-k.done
	require.NoError(t, chk.Left(k.label))
	k.c.Close()
}

// TestOfficialKeySharedOrderingUnderChurn: official Go client Key_Shared
// consumers are added and closed while a key-batching producer publishes
// 600 messages over 20 keys; every message is consumed, and the delivery
// log passes the keyorder checker (first deliveries per key increase,
// nothing of a departed consumer is overtaken, one consumer per key).
func TestOfficialKeySharedOrderingUnderChurn(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	var chk keyorder.Checker
	const total = 600

	var mu sync.Mutex
	consumed := map[string]bool{}
	allDone := make(chan struct{})
	done := func(payload string) {
		mu.Lock()
		defer mu.Unlock()
		consumed[payload] = true
		if len(consumed) == total {
			close(allDone)
		}
	}
	seq := 0
	start := func(name string) *ksConsumer {
		seq++
		return startKeySharedConsumer(t, client, topic, name, fmt.Sprintf("%s#%d", name, seq), uint64(seq), &chk, done)
	}

	prod, err := client.CreateProducer(official.ProducerOptions{
		Topic: topic, BatcherBuilderType: official.KeyBasedBatchBuilder,
		BatchingMaxPublishDelay: 2 * time.Millisecond, BatchingMaxMessages: 5,
	})
	require.NoError(t, err)
	defer prod.Close()
	sent := 0
	publish := func(n int) {
		errs := make(chan error, n)
		for range n {
			i := sent
			sent++
			prod.SendAsync(ctxT(t), &official.ProducerMessage{Key: fmt.Sprint("key-", i%20), Payload: fmt.Appendf(nil, "m-%d", i)},
				func(_ official.MessageID, _ *official.ProducerMessage, err error) { errs <- err })
		}
		require.NoError(t, prod.FlushWithCtx(ctxT(t)))
		for range n {
			require.NoError(t, <-errs)
		}
	}

	c1, c2 := start("c1"), start("c2")
	publish(150)
	c3 := start("c3")
	publish(150)
	c1.stop(t, &chk)
	c4 := start("c4")
	publish(100)
	c2.stop(t, &chk)
	c1b := start("c1") // the same name again
	publish(100)
	c3.stop(t, &chk)
	publish(100)

	select {
	case <-allDone:
	case <-time.After(20 * time.Second):
		mu.Lock()
		n := len(consumed)
		mu.Unlock()
		t.Fatalf("consumed %d of %d messages", n, total)
	}
	c4.stop(t, &chk)
	c1b.stop(t, &chk)
	assert.Equal(t, total, sent)
	require.NoError(t, chk.Err())
	received := 0
	for _, e := range chk.Events() {
		if e.Kind == keyorder.Received {
			received++
		}
	}
	assert.GreaterOrEqual(t, received, total)
	t.Logf("%d deliveries for %d messages", received, total)
}
