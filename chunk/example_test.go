package chunk_test

import (
	"bytes"
	"fmt"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// A producer splits a payload into chunks; a consumer reassembles them.
func Example() {
	payload := bytes.Repeat([]byte("pulsar "), 10) // 70 bytes

	// Producer: the broker's max message size minus the metadata (with the
	// chunk fields) leaves 25 bytes of payload per chunk.
	md := &proto.MessageMetadata{
		ProducerName: gproto.String("producer-1"),
		SequenceId:   gproto.Uint64(42),
		PublishTime:  gproto.Uint64(1700000000000),
	}
	metadataSize := gproto.Size(md) + chunk.MetadataOverhead(chunk.UUID("producer-1", 42))
	size, err := chunk.PayloadSize(metadataSize+25, metadataSize)
	if err != nil {
		panic(err)
	}
	chunks, err := chunk.Split("producer-1", 42, payload, size)
	if err != nil {
		panic(err)
	}

	// Consumer: feed the chunks as they arrive, each with its message id.
	a := chunk.NewAssembler(chunk.Options{})
	for i, c := range chunks {
		cmd := gproto.Clone(md).(*proto.MessageMetadata)
		c.Apply(cmd) // what the producer writes into each chunk's metadata
		fmt.Printf("chunk %d/%d: %d bytes of %d, uuid %s\n", c.ChunkID, c.NumChunks, len(c.Payload), c.TotalSize, c.UUID)

		msg, discarded, err := a.Add(chunk.Incoming{
			Meta:    cmd,
			Payload: c.Payload,
			ID:      messageid.New(7, int64(i), -1, -1, 0),
		})
		if err != nil || len(discarded) > 0 {
			panic(err)
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
