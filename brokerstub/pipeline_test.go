package brokerstub

import (
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// TestPipelinedSendsWithDataDir: with a data dir, SENDs that one producer
// writes back to back (the topic pipelines their appends, pipeline.go) are
// answered in order with consecutive positions, and every entry receipted
// is there after Crash, in that order.
func TestPipelinedSendsWithDataDir(t *testing.T) {
	b := RunT(t, Options{DataDir: t.TempDir()})
	topic := "persistent://public/default/pipelined"
	c := dialRaw(t, b)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(1)}})
	name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
	const n = 300
	for seq := range uint64(n) {
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(seq), NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(seq), PublishTime: gproto.Uint64(1)},
			[]byte{byte(seq), byte(seq >> 8)})
	}
	var first *proto.MessageIdData
	for seq := range uint64(n) {
		r := c.expect(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt()
		if r.GetSequenceId() != seq {
			t.Fatalf("receipt %d is for sequence id %d", seq, r.GetSequenceId())
		}
		if first == nil {
			first = r.GetMessageId()
		}
		if r.GetMessageId().GetLedgerId() != first.GetLedgerId() || r.GetMessageId().GetEntryId() != first.GetEntryId()+seq {
			t.Fatalf("receipt %d at %d:%d, want %d:%d", seq, r.GetMessageId().GetLedgerId(), r.GetMessageId().GetEntryId(),
				first.GetLedgerId(), first.GetEntryId()+seq)
		}
	}
	if err := b.Crash(); err != nil {
		t.Fatal(err)
	}
	c = dialRaw(t, b)
	c.connect()
	rawSubscribe(t, c, topic, 1, n)
	for seq := 0; seq < n; {
		f, err := c.next()
		if err != nil {
			t.Fatalf("message %d after Crash: %v", seq, err)
		}
		if f.Cmd.GetType() != proto.BaseCommand_MESSAGE {
			continue // a PING
		}
		seq++
		if got := int(f.Payload[0]) | int(f.Payload[1])<<8; got != seq-1 {
			t.Fatalf("message %d after Crash carries %d", seq-1, got)
		}
	}
}
