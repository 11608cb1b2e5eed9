package consumer

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

const benchSize = 64 << 20

// benchEngine starts an engine on a stub for a benchmark.
func benchEngine(b *testing.B, brk *brokerstub.Broker, pool *conn.Pool, topic string, queue int) (*Engine[*Message], chan *Message) {
	out := make(chan *Message)
	e := New(Options[*Message]{
		Topic: topic, Partition: -1, Subscription: "bench",
		InitialPosition:   proto.CommandSubscribe_Earliest,
		Connect:           func(ctx context.Context) (*conn.Conn, error) { return pool.Get(ctx, brk.Addr()) },
		ConsumerID:        consumerIDs.Add(1),
		Out:               out,
		Wrap:              func(m *Message) *Message { return m },
		ReceiverQueueSize: queue,
	})
	if err := e.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Close)
	return e, out
}

// BenchmarkReceiveChunked64MiB measures the consumer's receive path for a
// 64 MiB chunked message, from the frames the connection hands over
// (already read, as for the official client's published 2.0x figure, which
// does not count frames either) to the message the application receives,
// acknowledged. B/payload-byte is the bytes allocated per message divided
// by its size.
func BenchmarkReceiveChunked64MiB(b *testing.B) {
	brk, err := brokerstub.Start(brokerstub.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer brk.Close()
	payload := make([]byte, benchSize)
	for _, chunkSize := range []int{1 << 20, 5 << 20} {
		b.Run(fmt.Sprintf("chunk=%dMiB", chunkSize>>20), func(b *testing.B) {
			pool := conn.NewPool(conn.Options{Dial: brk.Dial})
			defer pool.Close()
			e, out := benchEngine(b, brk, pool, fmt.Sprintf("bench-%d", chunkSize), 1000)
			chunks, err := chunk.Split("bench-producer", 1, payload, chunkSize)
			if err != nil {
				b.Fatal(err)
			}
			var gen, cid uint64
			_ = e.call(func() { gen, cid = e.gen, e.o.ConsumerID })
			frames := make([]event, len(chunks))
			for i, c := range chunks {
				md := &proto.MessageMetadata{ProducerName: gproto.String("bench-producer"), SequenceId: gproto.Uint64(1),
					PublishTime: gproto.Uint64(uint64(time.Now().UnixMilli()))}
				wire.SetChunkHeader(md, c.Header)
				l, en := uint64(1), uint64(i)
				cm := &proto.CommandMessage{ConsumerId: &cid, MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &en}}
				frames[i] = event{gen: gen, kind: evMessage, msg: cm,
					frame: &wire.Frame{Cmd: &proto.BaseCommand{Type: proto.BaseCommand_MESSAGE.Enum(), Message: cm},
						HasPayload: true, Meta: md, Payload: c.Payload}}
			}
			b.SetBytes(benchSize)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				for _, f := range frames {
					e.pushEvent(f)
				}
				m := <-out
				if len(m.Payload) != benchSize {
					b.Fatalf("got %d bytes", len(m.Payload))
				}
				if err := e.Ack(context.Background(), m.ID); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/benchSize, "B/payload-byte")
		})
	}
}

// BenchmarkReceiveChunked64MiBFromStub receives 64 MiB chunked messages
// (1 MiB chunks) that a stub delivers over an in-memory connection: each
// iteration stores one message on a new topic (not timed), then subscribes
// and receives it. Its B/payload-byte includes the connection's frame
// buffers (one per chunk, about 1.0x, the transport's and not the
// consumer's) and the subscription's set-up.
func BenchmarkReceiveChunked64MiBFromStub(b *testing.B) {
	brk, err := brokerstub.Start(brokerstub.Options{MaxMessageSize: 1<<20 + 4096})
	if err != nil {
		b.Fatal(err)
	}
	defer brk.Close()
	payload := make([]byte, benchSize)
	b.SetBytes(benchSize)
	b.ReportAllocs()
	// One connection pool for the whole run, as one client receiving a
	// stream of messages: its frame buffers are recycled across messages.
	pool := conn.NewPool(conn.Options{Dial: brk.Dial})
	defer pool.Close()
	var total uint64
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		topic := fmt.Sprintf("bench-stub-%d", i)
		p, err := consumertest.New(context.Background(), brk.Dial, brk.Addr(), topic, -1)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := p.SendChunked(context.Background(), payload, 1<<20, 0); err != nil {
			b.Fatal(err)
		}
		p.Close()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		e, out := benchEngine(b, brk, pool, topic, 1000)
		m := <-out
		if len(m.Payload) != benchSize {
			b.Fatalf("got %d bytes", len(m.Payload))
		}
		if err := e.Ack(context.Background(), m.ID); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.ReadMemStats(&after)
		total += after.TotalAlloc - before.TotalAlloc
		e.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/float64(b.N)/benchSize, "B/payload-byte")
}
