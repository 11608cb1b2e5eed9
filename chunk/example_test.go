package chunk_test

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/messageid"
)

// A producer splits a payload into chunks; a consumer reassembles them. Only
// this package, messageid and the standard library are used: this is what a
// program outside this module writes.
func Example() {
	payload := bytes.Repeat([]byte("pulsar "), 10) // 70 bytes

	// Producer: each chunk's payload is the broker's max message size minus
	// the encoded metadata, counted with the chunk fields.
	const maxMessageSize = 100 // the broker's maxMessageSize (5 MiB by default)
	const otherMetadata = 38   // producer name, sequence id, publish time, ...
	uuid := chunk.UUID("producer-1", 42)
	size, err := chunk.PayloadSize(maxMessageSize, otherMetadata+chunk.MetadataOverhead(uuid))
	if err != nil {
		fmt.Println(err)
		return
	}
	chunks, err := chunk.Split("producer-1", 42, payload, size)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Consumer: feed the chunks as they arrive, each with its message id.
	// A chunk's Header travels in its metadata (uuid, chunk_id,
	// num_chunks_from_msg, total_chunk_msg_size); the receiver reads it back.
	a := chunk.NewAssembler(chunk.Options{})
	for i, c := range chunks {
		fmt.Printf("chunk %d/%d: %d bytes of %d, uuid %s\n", c.ChunkID, c.NumChunks, len(c.Payload), c.TotalSize, c.UUID)
		msg, discarded, err := a.Add(chunk.Incoming{
			Header:  c.Header,
			Payload: c.Payload,
			ID:      messageid.New(7, int64(i), -1, -1, 0),
		})
		for _, d := range discarded {
			fmt.Println("discarded:", d.Reason) // acknowledge or nack d.ChunkIDs
		}
		if err != nil {
			return
		}
		if msg != nil {
			fmt.Printf("message %s: %d bytes, intact: %v\n", msg.UUID, len(msg.Payload), bytes.Equal(msg.Payload, payload))
			fmt.Printf("id %v, %d chunk ids to ack\n", msg.ID, len(msg.ChunkIDs))
		}
	}
	// Output:
	// chunk 0/3: 25 bytes of 70, uuid producer-1-42
	// chunk 1/3: 25 bytes of 70, uuid producer-1-42
	// chunk 2/3: 20 bytes of 70, uuid producer-1-42
	// message producer-1-42: 70 bytes, intact: true
	// id 7:0:-1;7:2:-1, 3 chunk ids to ack
}

// An incomplete message is given up on after Options.ExpireAfter and
// reported with the ids of the chunks received, for the caller to
// acknowledge (skip the message) or negatively acknowledge (have it
// redelivered).
func ExampleAssembler_Expire() {
	now := time.Unix(1_700_000_000, 0)
	a := chunk.NewAssembler(chunk.Options{
		ExpireAfter: time.Minute,
		Now:         func() time.Time { return now }, // a fake clock
	})
	chunks, _ := chunk.Split("producer-1", 7, make([]byte, 30), 10)
	for i, c := range chunks[:2] { // the last chunk never arrives
		_, _, _ = a.Add(chunk.Incoming{Header: c.Header, Payload: c.Payload, ID: messageid.New(3, int64(i), -1, -1, 0)})
	}
	messages, bytes := a.Pending()
	fmt.Printf("pending: %d message, %d bytes\n", messages, bytes)

	now = now.Add(time.Minute)
	for _, d := range a.Expire() {
		fmt.Printf("%s expired: %v, chunks %v\n", d.UUID, errors.Is(d.Reason, chunk.ErrExpired), d.ChunkIDs)
	}
	messages, bytes = a.Pending()
	fmt.Printf("pending: %d messages, %d bytes\n", messages, bytes)
	// Output:
	// pending: 1 message, 30 bytes
	// producer-1-7 expired: true, chunks [3:0:-1 3:1:-1]
	// pending: 0 messages, 0 bytes
}
