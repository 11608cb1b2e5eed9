// Keyshared shows Key_Shared ordering holding while consumers come and go:
// messages of 10 keys go to three consumers, one consumer leaves in the
// middle with messages unacknowledged and another joins; every delivery and
// ack is logged and brokerstub's keyorder checker verifies the log.
//
//	go run ./examples/keyshared
package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/brokerstub/keyorder"
	"github.com/pulsargo/sdk/pulsar"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "keyshared:", err)
		os.Exit(1)
	}
}

func idOf(m pulsar.Message) keyorder.ID {
	id := m.ID()
	return keyorder.ID{Ledger: id.LedgerID(), Entry: id.EntryID(), Batch: id.BatchIdx()}
}

// consumerLoop receives until ctx ends, logging every delivery and ack.
func consumerLoop(ctx context.Context, name string, c pulsar.Consumer, chk *keyorder.Checker, counts map[string]int, mu *sync.Mutex, ack bool) {
	for {
		m, err := c.Receive(ctx)
		if err != nil {
			return
		}
		_ = chk.Received(name, m.Key(), idOf(m))
		mu.Lock()
		counts[name]++
		mu.Unlock()
		if ack && c.Ack(m) == nil {
			_ = chk.Acked(name, idOf(m))
		}
	}
}

func run() error {
	b, err := brokerstub.Start(brokerstub.Options{})
	if err != nil {
		return err
	}
	defer b.Close()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	if err != nil {
		return err
	}
	defer client.Close()
	const topic = "keyshared-example"
	subscribe := func(name string) (pulsar.Consumer, error) {
		return client.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "workers",
			Type: pulsar.KeyShared, Name: name, ReceiverQueueSize: 20})
	}

	var chk keyorder.Checker
	counts := map[string]int{}
	var mu sync.Mutex
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	// start runs a consumer; the returned stop ends its loop and closes it.
	start := func(name string, ack bool) (stop func(), err error) {
		c, err := subscribe(name)
		if err != nil {
			return nil, err
		}
		cctx, ccancel := context.WithCancel(ctx)
		done := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			consumerLoop(cctx, name, c, &chk, counts, &mu, ack)
		}()
		// Its loop has stopped, so it receives nothing more: it leaves the
		// log before it closes, and before the broker hands what it held to
		// the others.
		return func() { ccancel(); <-done; _ = chk.Left(name); c.Close() }, nil
	}
	stopA, err := start("a", true)
	if err != nil {
		return err
	}
	defer stopA()
	// "b" never acks: what it holds must go, in order, to whoever takes over.
	stopB, err := start("b", false)
	if err != nil {
		return err
	}

	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: topic,
		BatcherBuilderType: pulsar.KeyBasedBatchBuilder})
	if err != nil {
		return err
	}
	defer producer.Close()
	send := func(from, to int) error {
		for i := from; i < to; i++ {
			key := fmt.Sprintf("key-%d", i%10)
			if _, err := producer.Send(ctx, &pulsar.ProducerMessage{Key: key, Payload: fmt.Appendf(nil, "%d", i)}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := send(0, 200); err != nil {
		return err
	}
	time.Sleep(200 * time.Millisecond)
	stopB() // leaves with unacknowledged messages
	stopC, err := start("c", true)
	if err != nil {
		return err
	}
	defer stopC()
	if err := send(200, 400); err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	wg.Wait()

	mu.Lock()
	fmt.Printf("deliveries per consumer: a=%d b=%d c=%d\n", counts["a"], counts["b"], counts["c"])
	mu.Unlock()
	if err := chk.Err(); err != nil {
		return fmt.Errorf("ordering violated: %w", err)
	}
	fmt.Println("per-key ordering checked: no violation")
	return nil
}
