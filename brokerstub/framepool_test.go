package brokerstub

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// The connection reads frames into recycled buffers (conn.go) and the
// ledger keeps copies: pipelined SENDs whose frames reuse each other's
// buffers must all be stored and delivered exactly as sent.
func TestPipelinedSendsSurviveFrameBufferReuse(t *testing.T) {
	for _, name := range []string{"persistent://public/default/reuse", "non-persistent://public/default/reuse"} {
		t.Run(name, func(t *testing.T) { testSendsSurviveFrameBufferReuse(t, name) })
	}
}

func testSendsSurviveFrameBufferReuse(t *testing.T, topic string) {
	br := RunT(t, Options{})
	const n = 64
	cons := rawSubscriber(t, br, topic, n)
	prod, pname := rawProducer(t, br, topic)
	// Sizes in the pool's small class and in larger ones (up to one the
	// ledger keeps the frame buffer of instead of copying), each payload
	// filled with its own byte, all written before any receipt is read.
	sizes := []int{100, 1 << 10, 10 << 10, 70 << 10, 200 << 10, 1 << 20}
	var stream []byte
	want := make([][]byte, n)
	for i := range n {
		want[i] = bytes.Repeat([]byte{byte('a' + i%26)}, sizes[i%len(sizes)]+i)
		var err error
		stream, err = wire.AppendPayloadFrame(stream, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(uint64(i)), NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: &pname, SequenceId: gproto.Uint64(uint64(i)), PublishTime: gproto.Uint64(1)}, want[i])
		if err != nil {
			t.Fatal(err)
		}
	}
	go func() { _, _ = prod.nc.Write(stream) }()
	for i := range n {
		if r := prod.expect(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt(); r.GetSequenceId() != uint64(i) {
			t.Fatalf("receipt %d for sequence %d", i, r.GetSequenceId())
		}
	}
	for i := 0; i < n; {
		f, err := cons.next()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if f.Cmd.GetType() != proto.BaseCommand_MESSAGE {
			continue
		}
		if !bytes.Equal(f.Payload, want[i]) {
			t.Fatalf("message %d: %s, want %d bytes of %q", i, describe(f.Payload), len(want[i]), want[i][0])
		}
		i++
	}
}

// describe summarizes a payload for a failure message.
func describe(p []byte) string {
	if len(p) == 0 {
		return "empty"
	}
	return fmt.Sprintf("%d bytes starting %q", len(p), p[:min(len(p), 8)])
}

// A MESSAGE repeats the checksum its entry's SEND came with (the stub does
// not compute it again), and carries a computed one for a SEND that had
// none, as an old client's: either way the consumer's reader verifies it.
func TestMessagesCarryTheSendsChecksumOrAComputedOne(t *testing.T) {
	br := RunT(t, Options{})
	topic := "persistent://public/default/checksums"
	cons := rawSubscriber(t, br, topic, 10)
	prod, pname := rawProducer(t, br, topic)

	var sent []uint32 // the SENDs' checksums; 0 for the one sent without
	for seq, withSum := range []bool{true, false} {
		frame, err := wire.AppendPayloadFrame(nil, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(uint64(seq)), NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: &pname, SequenceId: gproto.Uint64(uint64(seq)), PublishTime: gproto.Uint64(1)},
			fmt.Appendf(nil, "payload %d", seq))
		if err != nil {
			t.Fatal(err)
		}
		sumAt := 8 + int(binary.BigEndian.Uint32(frame[4:])) // after TOTAL_SIZE, CMD_SIZE and the command
		if withSum {
			sent = append(sent, binary.BigEndian.Uint32(frame[sumAt+2:]))
		} else {
			// An old client's frame: no 0x0e01 section.
			frame = append(frame[:sumAt:sumAt], frame[sumAt+6:]...)
			binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
			sent = append(sent, 0)
		}
		if _, err := prod.nc.Write(frame); err != nil {
			t.Fatal(err)
		}
		prod.expect(proto.BaseCommand_SEND_RECEIPT)
	}
	for i := 0; i < len(sent); {
		f, err := cons.next() // verifies the checksum
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if f.Cmd.GetType() != proto.BaseCommand_MESSAGE {
			continue
		}
		if !f.HasChecksum {
			t.Fatalf("message %d has no checksum", i)
		}
		if sent[i] != 0 && f.Checksum != sent[i] {
			t.Fatalf("message %d: checksum %#x, the SEND's was %#x", i, f.Checksum, sent[i])
		}
		i++
	}
}
