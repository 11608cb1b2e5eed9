package pulsar_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/messageid"
	"github.com/pulsargo/sdk/pulsar"
)

// Send a message too large for the broker in chunks, receive it whole, and
// seek back to it with the id the producer returned.
func Example() {
	stub, err := brokerstub.Start(brokerstub.Options{MaxMessageSize: 1 << 20}) // 1 MiB broker limit
	if err != nil {
		log.Fatal(err)
	}
	defer stub.Close()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: stub.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	consumer, err := client.Subscribe(pulsar.ConsumerOptions{Topic: "example", SubscriptionName: "s",
		StartMessageIDInclusive: true})
	if err != nil {
		log.Fatal(err)
	}
	defer consumer.Close()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: "example", EnableChunking: true})
	if err != nil {
		log.Fatal(err)
	}
	defer producer.Close()

	id, err := producer.Send(ctx, &pulsar.ProducerMessage{Payload: make([]byte, 5<<20)})
	if err != nil {
		log.Fatal(err)
	}
	chunkID := id.(pulsar.ChunkMessageID)
	fmt.Println("first chunk:", chunkID.FirstChunkID(), "last chunk:", chunkID.LastChunkID())

	msg, err := consumer.Receive(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("received bytes:", len(msg.Payload()))
	_ = consumer.Ack(msg)

	// The id survives serialization with its first chunk; Seek replays the
	// whole message.
	stored, _ := pulsar.DeserializeMessageID(chunkID.Serialize())
	if err := consumer.Seek(stored); err != nil {
		log.Fatal(err)
	}
	again, err := consumer.Receive(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after seek:", len(again.Payload()), messageid.Equal(again.ID(), chunkID))
	// Output:
	// first chunk: 1:0:-1 last chunk: 1:5:-1
	// received bytes: 5242880
	// after seek: 5242880 true
}

// Readers start at a whole chunked message, inclusive or exclusive.
func ExampleClient_CreateReader() {
	stub, err := brokerstub.Start(brokerstub.Options{MaxMessageSize: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer stub.Close()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: stub.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: "reader-example", EnableChunking: true})
	if err != nil {
		log.Fatal(err)
	}
	defer producer.Close()
	big, _ := producer.Send(ctx, &pulsar.ProducerMessage{Payload: make([]byte, 3<<20)})
	_, _ = producer.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("after")})

	reader, err := client.CreateReader(pulsar.ReaderOptions{Topic: "reader-example", StartMessageID: big,
		StartMessageIDInclusive: true})
	if err != nil {
		log.Fatal(err)
	}
	defer reader.Close()
	for reader.HasNext() {
		m, err := reader.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(m.Payload()))
	}
	// Output:
	// 3145728
	// 5
}
