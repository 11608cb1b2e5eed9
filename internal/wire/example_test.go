package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// A producer encodes a SEND frame header and writes it together with the
// payload, without copying the payload; the broker side reads frames from
// the stream and splits the batch.
func Example() {
	// Two messages in one batch.
	var batch []byte
	batch, _ = wire.AppendBatchEntry(batch, &proto.SingleMessageMetadata{PartitionKey: protobuf.String("k1")}, []byte("hello"))
	batch, _ = wire.AppendBatchEntry(batch, &proto.SingleMessageMetadata{PartitionKey: protobuf.String("k2")}, []byte("world"))

	cmd, _ := wire.NewCommand(proto.BaseCommand_SEND, &proto.CommandSend{
		ProducerId:  protobuf.Uint64(1),
		SequenceId:  protobuf.Uint64(0),
		NumMessages: protobuf.Int32(2),
	})
	meta := &proto.MessageMetadata{
		ProducerName:       protobuf.String("standalone-0-1"),
		SequenceId:         protobuf.Uint64(0),
		PublishTime:        protobuf.Uint64(1_700_000_000_000),
		NumMessagesInBatch: protobuf.Int32(2),
	}
	header, err := wire.AppendPayloadHeader(nil, cmd, meta, batch)
	if err != nil {
		fmt.Println(err)
		return
	}

	var conn bytes.Buffer // stands for a net.Conn
	bufs := net.Buffers{header, batch}
	if _, err := bufs.WriteTo(&conn); err != nil {
		fmt.Println(err)
		return
	}

	r := wire.NewReader(&conn, wire.DefaultMaxFrameSize)
	f, err := r.ReadFrame()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(wire.CommandType(f.Cmd), f.Meta.GetProducerName(), "batch:", wire.IsBatch(f.Meta))
	_ = wire.SplitBatch(f.Payload, int(f.Meta.GetNumMessagesInBatch()),
		func(i int, smm *proto.SingleMessageMetadata, body []byte) error {
			fmt.Printf("%d %s %s\n", i, smm.GetPartitionKey(), body)
			return nil
		})

	// A corrupted payload is reported with a typed error that keeps the
	// command, so that a broker can answer with CommandSendError.
	frame := append(header, batch...)
	frame[len(frame)-1] ^= 1
	_, err = wire.DecodeFrame(frame, 0)
	var fe *wire.FrameError
	if errors.As(err, &fe) && errors.Is(err, wire.ErrChecksum) {
		fmt.Println("checksum error for sequence", fe.Cmd.GetSend().GetSequenceId())
	}
	// Output:
	// SEND standalone-0-1 batch: true
	// 0 k1 hello
	// 1 k2 world
	// checksum error for sequence 0
}
