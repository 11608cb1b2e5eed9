package brokerstub

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// Deliveries the client has not read yet do not stop the broker reading
// it: a Pulsar broker by default reads on whatever it has queued for a
// client, and the official Go client reads its deliveries only once its
// own writes go through (its connection reader waits on a producer's lock
// that the producer holds while it waits to write). When the stub paused
// on deliveries past WriteBufferHighWaterMark, that client deadlocked on a
// 1,000-partition topic until its sends timed out (pulsarbench W6). The
// client here has 4x the high-water mark of deliveries queued and unread,
// and one more SEND must still be read.
func TestDeliveriesDoNotPauseReads(t *testing.T) {
	const high = 16 << 10
	t.Run("PauseReceivingIfUnwritable", func(t *testing.T) {
		deliveriesDoNotPause(t, Options{PauseReceivingIfUnwritable: true, WriteBufferHighWaterMark: high, WriteBufferLowWaterMark: high / 2})
	})
	t.Run("MaxQueuedAnswers", func(t *testing.T) {
		deliveriesDoNotPause(t, Options{MaxQueuedAnswers: high})
	})
}

func deliveriesDoNotPause(t *testing.T, o Options) {
	synctest.Test(t, func(t *testing.T) {
		const high, msgs = 16 << 10, 64
		o.NoListener = true
		b, err := Start(o)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		nc, err := b.Dial(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		c := dialRawOn(t, nc)
		c.connect()
		topic := "persistent://public/default/deliveries"
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
			Topic: &topic, ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(1)}})
		name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
		send := func(seq uint64) []byte {
			frame, err := wire.AppendPayloadFrame(nil, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
				ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(seq)}},
				&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(seq), PublishTime: gproto.Uint64(1)},
				make([]byte, 1024))
			if err != nil {
				t.Fatal(err)
			}
			return frame
		}
		for seq := range uint64(msgs) {
			c.writeRaw(send(seq))
			c.expect(proto.BaseCommand_SEND_RECEIPT)
		}
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
			Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Shared.Enum(),
			ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(2), InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
		c.expect(proto.BaseCommand_SUCCESS)
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
			ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(1000)}})
		synctest.Wait() // the deliveries are queued, the writer blocked on the unread pipe

		// The read loop looks at the queue before it reads a frame: the
		// first SEND was awaited already, the second is the one a pause
		// would hold.
		for seq := uint64(msgs); seq < msgs+2; seq++ {
			_ = nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := nc.Write(send(seq)); err != nil {
				t.Fatalf("SEND %d behind %d KiB of unread deliveries (high-water mark %d KiB) was not read: %v", seq, msgs, high>>10, err)
			}
		}
		_ = nc.SetWriteDeadline(time.Time{})
		// Everything arrives once the client reads: the deliveries, then
		// the new SENDs' receipts.
		delivered, receipts := 0, uint64(msgs)
		for receipts < msgs+2 {
			f, err := c.next()
			if err != nil {
				t.Fatalf("after %d deliveries: %v", delivered, err)
			}
			switch f.Cmd.GetType() {
			case proto.BaseCommand_MESSAGE:
				delivered++
				continue
			case proto.BaseCommand_SEND_RECEIPT:
				if got := f.Cmd.GetSendReceipt().GetSequenceId(); got != receipts {
					t.Fatalf("receipt of sequence %d, want %d", got, receipts)
				}
				receipts++
			}
		}
		if delivered < msgs {
			t.Errorf("%d deliveries before the receipt, want the %d queued first", delivered, msgs)
		}
	})
}

// By default, as a Pulsar broker (pulsarChannelPauseReceivingRequestsIfUnwritable
// false), answers waiting past the write buffer's high-water mark do not
// stop the broker reading a client: 1 MiB of PINGs whose PONGs are not
// read yet is all read with a 64 KiB high-water mark.
func TestAnswersPastHighWaterMarkDoNotPauseByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := Start(Options{NoListener: true, WriteBufferHighWaterMark: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		nc, err := b.Dial(context.Background(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		dialRawOn(t, nc).connect()
		sent, stalled, err := floodPings(t, nc, 1<<20)
		if err != nil || stalled {
			t.Fatalf("the broker stopped reading after %d KiB of PINGs (stalled %v, %v), want it to read on up to MaxQueuedAnswers", sent>>10, stalled, err)
		}
	})
}
