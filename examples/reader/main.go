// Reader shows readers starting at a chunked message: the producer sends a
// small message, a large (chunked) one and another small one; readers then
// start from the earliest message, at the chunked message's id inclusive
// (they get the whole message, not its last chunk), and exclusive (they get
// what follows it). The id is serialized and read back first, as an
// application storing its position would.
//
//	go run ./examples/reader
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "reader:", err)
		os.Exit(1)
	}
}

func run() error {
	// A 1 MiB broker limit makes a 3 MiB message travel in chunks.
	b, err := brokerstub.Start(brokerstub.Options{MaxMessageSize: 1 << 20})
	if err != nil {
		return err
	}
	defer b.Close()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	if err != nil {
		return err
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const topic = "reader-example"
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: topic, EnableChunking: true})
	if err != nil {
		return err
	}
	defer producer.Close()
	var ids []pulsar.MessageID
	for _, p := range [][]byte{[]byte("before"), make([]byte, 3<<20), []byte("after")} {
		id, err := producer.Send(ctx, &pulsar.ProducerMessage{Payload: p})
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	stored := ids[1].Serialize() // what an application would keep
	chunkID, err := pulsar.DeserializeMessageID(stored)
	if err != nil {
		return err
	}
	fmt.Printf("chunked message id: %s\n", chunkID)

	read := func(label string, start pulsar.MessageID, inclusive bool) error {
		r, err := client.CreateReader(pulsar.ReaderOptions{Topic: topic, StartMessageID: start, StartMessageIDInclusive: inclusive})
		if err != nil {
			return err
		}
		defer r.Close()
		fmt.Printf("%-28s", label+":")
		for r.HasNext() {
			m, err := r.Next(ctx)
			if err != nil {
				return err
			}
			if len(m.Payload()) > 100 {
				fmt.Printf(" [%d bytes, id %s]", len(m.Payload()), m.ID())
			} else {
				fmt.Printf(" %q", m.Payload())
			}
		}
		fmt.Println()
		return nil
	}
	if err := read("from earliest", pulsar.EarliestMessageID(), false); err != nil {
		return err
	}
	if err := read("at the chunk id, inclusive", chunkID, true); err != nil {
		return err
	}
	return read("at the chunk id, exclusive", chunkID, false)
}
