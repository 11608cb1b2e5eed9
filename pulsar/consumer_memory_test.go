package pulsar

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
)

// liveHeap is the bytes of heap objects after a GC.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// memEnv is a stub and a client with a consumer memory limit.
func memEnv(t *testing.T, limit int64) *csEnv {
	t.Helper()
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, Logger: csLogger()})
	c, err := NewClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, OperationTimeout: 5 * time.Second,
		Logger: clientLogger(), ConsumerMemoryLimitBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &csEnv{t: t, b: b, c: c}
}

// sendBombs sends n ZSTD messages of zeros that declare (and expand to)
// size bytes each: a few hundred bytes on the wire.
func sendBombs(t *testing.T, v *csEnv, topic string, n, size int) {
	t.Helper()
	codec, err := compress.Lookup(compress.ZSTD)
	if err != nil {
		t.Fatal(err)
	}
	bomb := codec.Compress(nil, make([]byte, size))
	p := v.raw(topic, -1)
	for range n {
		md := p.Meta()
		md.Compression = proto.CompressionType_ZSTD.Enum()
		md.UncompressedSize = gproto.Uint32(uint32(size))
		if _, err := p.SendRaw(csCtx(t), md, bomb); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConsumerMemoryLimitS1 is issue #31's S1, scaled down: 20 ZSTD
// messages that expand to 16 MiB each, a consumer subscribed that does not
// receive. With ConsumerMemoryLimitBytes 8 MiB the client's heap grows by
// no more than the limit + 64 MiB (it grew by the 320 MiB of the 20
// decompressed messages when each was decompressed on arrival); then every
// message is still received whole, one at a time. With Chan the engine may
// decompress the one message at the head of its queue, and no more.
func TestConsumerMemoryLimitS1(t *testing.T) {
	const limit, size, n = 8 << 20, 16 << 20, 20
	for _, useChan := range []bool{false, true} {
		name := map[bool]string{false: "Receive", true: "Chan"}[useChan]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := memEnv(t, limit)
				topic := csTopic()
				sendBombs(t, v, topic, n, size)
				before := liveHeap()
				c := v.subscribe(ConsumerOptions{Topic: topic, Type: Exclusive})
				var ch <-chan ConsumerMessage
				if useChan {
					ch = c.Chan()
				}
				synctest.Wait() // every message delivered to the client, none received
				grew := liveHeap() - before
				t.Logf("heap growth with %d messages of %d MiB queued: %.1f MiB (limit %d MiB)", n, size>>20, float64(grew)/(1<<20), limit>>20)
				if grew > limit+64<<20 {
					t.Fatalf("heap grew by %d MiB with %d MiB queued, want <= limit + 64 MiB = %d MiB",
						grew>>20, int64(n*size)>>20, (limit+64<<20)>>20)
				}
				for i := range n {
					var m Message
					if useChan {
						cm := <-ch
						m = cm.Message
					} else {
						m = csRecv(t, c)
					}
					if p := m.Payload(); len(p) != size || p[0] != 0 || p[size-1] != 0 {
						t.Fatalf("message %d: %d bytes", i, len(p))
					}
					if err := c.Ack(m); err != nil {
						t.Fatal(err)
					}
					m = nil
					if grew := liveHeap() - before; grew > limit+64<<20 {
						t.Fatalf("after %d received: heap grew by %d MiB", i+1, grew>>20)
					}
				}
			})
		})
	}
}

// memMsg is the message size of the budget tests that count messages: the
// budget counts payload bytes, so only the ratio of limit to message size
// matters.
const memMsg = 64 << 10

// TestConsumerMemoryLimitWithholdsPermits: while the budget is used up, a
// consumer with messages queued gives the broker no permits back; they
// resume as the application receives. 30 messages of M = 64 KiB, a
// receiver queue of 10 (permits go back 5 at a time) and a limit of 4 M:
// the broker sends the first 10; 5 received leave 5 M queued, over the
// limit, so nothing more comes (15 without the limit); after the 7th, 3 M
// are queued and the 7 permits go back (17 sent). The budget counts payload
// bytes only, so what matters is the ratio of limit to message size; M was
// 1 MiB, which cost 30 MiB of copies under the race detector per case.
func TestConsumerMemoryLimitWithholdsPermits(t *testing.T) {
	for _, tc := range []struct {
		name        string
		limit       int64
		after5, at7 int64
	}{{"limited", 4 * memMsg, 10, 17}, {"unlimited", -1, 15, 15}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v := memEnv(t, tc.limit)
				topic := csTopic()
				p := v.raw(topic, -1)
				for i := range 30 {
					if _, err := p.Send(csCtx(t), csNoise(memMsg, uint64(i)), ""); err != nil {
						t.Fatal(err)
					}
				}
				var sent atomic.Int64
				v.b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
					if ev.Dir == brokerstub.Outbound && ev.Type == "MESSAGE" {
						sent.Add(1)
					}
					return brokerstub.Action{}
				})
				c := v.subscribe(ConsumerOptions{Topic: topic, Type: Exclusive, ReceiverQueueSize: 10})
				synctest.Wait()
				if got := sent.Load(); got != 10 {
					t.Fatalf("sent before any receive: %d, want 10", got)
				}
				csRecvN(t, c, 5)
				synctest.Wait()
				if got := sent.Load(); got != tc.after5 {
					t.Fatalf("sent after 5 received: %d, want %d", got, tc.after5)
				}
				csRecvN(t, c, 2)
				synctest.Wait()
				if got := sent.Load(); got != tc.at7 {
					t.Fatalf("sent after 7 received: %d, want %d", got, tc.at7)
				}
				csRecvN(t, c, 23)
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				if m, err := c.Receive(ctx); err == nil {
					t.Fatalf("a 31st message: %v", m.ID())
				}
			})
		})
	}
}

// TestConsumerMemoryLimitNoStarvation: one consumer's queue holding the
// whole budget (it never receives) neither blocks a producer of the same
// client (the budgets are apart: apache/pulsar-client-go#1455) nor starves
// another consumer, whose empty queue always gets its next message — also
// a compressed one that does not fit the budget.
func TestConsumerMemoryLimitNoStarvation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Sizes in memMsg units (they were MiB): a budget of 4, an idle
		// queue of 10 holding it, compressed messages of 2 that do not fit.
		v := memEnv(t, 4*memMsg)
		full, other := csTopic(), csTopic()
		p := v.raw(full, -1)
		for i := range 10 {
			if _, err := p.Send(csCtx(t), csNoise(memMsg, uint64(i)), ""); err != nil {
				t.Fatal(err)
			}
		}
		v.subscribe(ConsumerOptions{Topic: full, Type: Exclusive, SubscriptionName: "idle"})
		synctest.Wait()
		if used := v.c.(*client).consumerMem.Used(); used < 10*memMsg {
			t.Fatalf("the idle consumer holds %d bytes, want its %d", used, 10*memMsg)
		}
		// A receiver queue of 1: each message received gives its permit
		// back while the budget is still used up, so an engine that
		// withheld permits with an empty queue would starve here.
		c := v.subscribe(ConsumerOptions{Topic: other, Type: Exclusive, SubscriptionName: "busy", ReceiverQueueSize: 1})
		prod := testProducer(t, v.c, ProducerOptions{Topic: other, CompressionType: ZSTD, DisableBatching: true})
		for i := range 3 {
			if _, err := prod.Send(csCtx(t), &ProducerMessage{Payload: make([]byte, 2*memMsg)}); err != nil {
				t.Fatalf("send %d while the consumer budget is used up: %v", i, err)
			}
		}
		for i := range 3 {
			if m := csRecv(t, c); len(m.Payload()) != 2*memMsg {
				t.Fatalf("message %d: %d bytes", i, len(m.Payload()))
			}
		}
	})
}
