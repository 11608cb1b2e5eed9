package integration

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"

	"github.com/pulsargo/sdk/brokerstub"
)

// BenchmarkOfficialProduce1KiB measures the official client's batched
// produce throughput against the in-process stub (1 KiB messages).
func BenchmarkOfficialProduce1KiB(b *testing.B) {
	stub, err := brokerstub.Start(brokerstub.Options{Logger: stubLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer stub.Close()
	client, err := official.NewClient(official.ClientOptions{URL: stub.URL(), Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: "bench-produce",
		BatchingMaxPublishDelay: 5 * time.Millisecond, MaxPendingMessages: 10000})
	if err != nil {
		b.Fatal(err)
	}
	defer prod.Close()
	payload := make([]byte, 1024)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	ctx := context.Background()
	errs := make(chan error, 1)
	for b.Loop() {
		prod.SendAsync(ctx, &official.ProducerMessage{Payload: payload}, func(_ official.MessageID, _ *official.ProducerMessage, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	if err := prod.FlushWithCtx(ctx); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkOfficialChunkedEndToEnd measures the official client sending
// 16 MiB messages in 1 MiB chunks through the stub and receiving them.
func BenchmarkOfficialChunkedEndToEnd(b *testing.B) {
	stub, err := brokerstub.Start(brokerstub.Options{Logger: stubLogger(), MaxMessageSize: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer stub.Close()
	client, err := official.NewClient(official.ClientOptions{URL: stub.URL(), Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	cons, err := client.Subscribe(official.ConsumerOptions{Topic: "bench-chunked", SubscriptionName: "s"})
	if err != nil {
		b.Fatal(err)
	}
	defer cons.Close()
	prod, err := client.CreateProducer(official.ProducerOptions{Topic: "bench-chunked", EnableChunking: true, DisableBatching: true})
	if err != nil {
		b.Fatal(err)
	}
	defer prod.Close()
	payload := make([]byte, 16<<20)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		if _, err := prod.Send(ctx, &official.ProducerMessage{Payload: payload}); err != nil {
			b.Fatal(err)
		}
		m, err := cons.Receive(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Payload()) != len(payload) {
			b.Fatalf("got %d bytes", len(m.Payload()))
		}
		_ = cons.Ack(m)
	}
}

// The benchmarks below run the official client against cmd/brokerstub as
// a separate process — the stub as a server, as a suite written for Pulsar
// uses it — with 1 KiB batched messages and 64 MiB messages in 1 MiB
// chunks, producing and consuming apart:
//
//	cd integration && go test -run '^$' -bench BenchmarkOfficialServer -benchtime 5x .

// officialServerClient builds and starts cmd/brokerstub and returns an
// official client connected to it.
func officialServerClient(b *testing.B) official.Client {
	bin := buildServer(b)
	srv := startServer(b, bin, "-addr", "127.0.0.1:0", "-max-message-size", fmt.Sprint(5<<20))
	client, err := official.NewClient(official.ClientOptions{URL: srv.url, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(client.Close)
	return client
}

// officialProduce sends n messages of payload with p, asynchronously, and
// waits for every receipt.
func officialProduce(b *testing.B, p official.Producer, n int, payload []byte) {
	ctx := context.Background()
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	wg.Add(n)
	for range n {
		p.SendAsync(ctx, &official.ProducerMessage{Payload: payload}, func(_ official.MessageID, _ *official.ProducerMessage, err error) {
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			}
			wg.Done()
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
}

// officialReceive receives n messages of size bytes with c and acks them.
func officialReceive(b *testing.B, c official.Consumer, n, size int) {
	ctx := context.Background()
	for range n {
		m, err := c.Receive(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Payload()) != size {
			b.Fatalf("got %d bytes, want %d", len(m.Payload()), size)
		}
		_ = c.Ack(m)
	}
}

func BenchmarkOfficialServer(b *testing.B) {
	client := officialServerClient(b)
	batched := official.ProducerOptions{BatchingMaxPublishDelay: 10 * time.Millisecond, MaxPendingMessages: 10_000}
	chunked := official.ProducerOptions{EnableChunking: true, DisableBatching: true, ChunkMaxMessageSize: 1 << 20}
	for _, w := range []struct {
		name string
		size int
		n    int // messages per op
		opts official.ProducerOptions
	}{
		{"1KiB-batched", 1 << 10, 10_000, batched},
		{"64MiB-chunked", 64 << 20, 1, chunked},
	} {
		payload := make([]byte, w.size)
		newTopic := func(b *testing.B, kind string) string {
			return fmt.Sprintf("persistent://public/default/bench-server-%s-%s-%d", w.name, kind, time.Now().UnixNano())
		}
		producer := func(b *testing.B, topic string) official.Producer {
			o := w.opts
			o.Topic = topic
			p, err := client.CreateProducer(o)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(p.Close)
			return p
		}
		b.Run(w.name+"/produce", func(b *testing.B) {
			p := producer(b, newTopic(b, "produce"))
			b.SetBytes(int64(w.size * w.n))
			b.ReportAllocs()
			for b.Loop() {
				officialProduce(b, p, w.n, payload)
			}
			b.ReportMetric(float64(b.N*w.n)/b.Elapsed().Seconds(), "msgs/s")
		})
		b.Run(w.name+"/consume", func(b *testing.B) {
			topic := newTopic(b, "consume")
			opts := official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
				SubscriptionInitialPosition: official.SubscriptionPositionEarliest}
			// The subscription keeps the backlog, produced before the timer
			// starts with no consumer connected, so that the timed part
			// moves all of it from the broker.
			c, err := client.Subscribe(opts)
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
			officialProduce(b, producer(b, topic), b.N*w.n, payload)
			b.SetBytes(int64(w.size * w.n))
			b.ReportAllocs()
			b.ResetTimer()
			if c, err = client.Subscribe(opts); err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			officialReceive(b, c, b.N*w.n, w.size)
			b.ReportMetric(float64(b.N*w.n)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
