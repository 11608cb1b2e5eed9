package brokerstub_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// A test starts a broker, points a client at it, and can break things on
// purpose: here the broker fails the first send with a retriable error.
func Example() {
	b, err := brokerstub.Start(brokerstub.Options{}) // in tests: brokerstub.RunT(t)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()

	failed := false
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Dir == brokerstub.Inbound && ev.Type == brokerstub.CmdSend && !failed {
			failed = true
			return brokerstub.Action{Fail: true, FailWith: "PersistenceError"}
		}
		return brokerstub.Action{}
	})

	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: "orders", DisableBatching: true})
	if err != nil {
		log.Fatal(err)
	}
	defer producer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = producer.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("1")})
	fmt.Println("first send retriable:", pulsar.IsRetriable(err))
	_, err = producer.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("2")})
	fmt.Println("second send:", err)
	// Output:
	// first send retriable: true
	// second send: <nil>
}

// Restart keeps what the broker acknowledged; Crash also loses cursor
// state that was not flushed yet.
func ExampleBroker_Restart() {
	b, err := brokerstub.Start(brokerstub.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: "events"})
	if err != nil {
		log.Fatal(err)
	}
	_, _ = producer.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("kept")})
	producer.Close()

	if err := b.Restart(); err != nil {
		log.Fatal(err)
	}
	reader, err := client.CreateReader(pulsar.ReaderOptions{Topic: "events", StartMessageID: pulsar.EarliestMessageID()})
	if err != nil {
		log.Fatal(err)
	}
	defer reader.Close()
	m, err := reader.Next(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(m.Payload()))
	// Output: kept
}
