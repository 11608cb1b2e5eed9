package integration

import (
	"context"
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
