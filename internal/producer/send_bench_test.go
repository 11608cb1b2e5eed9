package producer

import (
	"context"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// ackConn is a Conn that acknowledges every SEND from a goroutine of its
// own, as a broker's receipts come from the connection's reader: it keeps
// nothing of the frames, so that a benchmark's allocations are the
// engine's.
type ackConn struct {
	fakeConn
	acks chan uint64
}

func newAckConn() *ackConn {
	c := &ackConn{fakeConn: fakeConn{maxMsg: 5 << 20}, acks: make(chan uint64, 1<<16)}
	go func() {
		entry := uint64(0)
		for seq := range c.acks {
			entry++
			c.handler().Receipt(&proto.CommandSendReceipt{ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(seq),
				MessageId: &proto.MessageIdData{LedgerId: gproto.Uint64(1), EntryId: gproto.Uint64(entry)}})
		}
	}()
	return c
}

func (c *ackConn) SendPayload(cmd *proto.BaseCommand, _ *proto.MessageMetadata, _ []byte) error {
	c.acks <- cmd.GetSend().GetSequenceId()
	return nil
}

// BenchmarkSendAsyncBatched is the engine's share of W1 (pulsarbench): 1
// KiB messages batched with W1's delay and pending limit, every entry
// acknowledged at once. allocs/op and B/op are the engine's per message;
// the batch payload buffers and message lists are reused, so what remains
// is the message id each callback gets (it escapes to the callback) and
// the per-batch share of an entry's metadata and commands.
func BenchmarkSendAsyncBatched(b *testing.B) {
	c := newAckConn()
	defer close(c.acks)
	p, err := New(context.Background(), Options{Topic: "persistent://public/default/bench", ProducerID: 1,
		Connect: func(context.Context) (Conn, error) { return c, nil }, BatchMaxDelay: 10 * time.Millisecond,
		MaxPendingMessages: 10_000})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := context.Background()
	m := &Message{Payload: make([]byte, 1024)}
	done := func(_ messageid.MessageID, err error) {
		if err != nil {
			b.Error(err)
		}
	}
	b.SetBytes(int64(len(m.Payload)))
	b.ReportAllocs()
	for b.Loop() {
		p.SendAsync(ctx, m, done)
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}
