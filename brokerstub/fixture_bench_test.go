package brokerstub

import (
	"bufio"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// The benchmarks in this file measure the stub as a test fixture at scale:
// many brokers started by parallel tests, many topics in one broker, and a
// Key_Shared subscription fanned out to many consumers.

// BenchmarkStartParallel starts and closes in-memory brokers (no listener,
// as a test of the SDK uses them) from 200 goroutines at once, as a test
// binary with t.Parallel tests does; ns/op is the wall time per broker with
// that many starting together, B/op what one start and close allocate.
func BenchmarkStartParallel(b *testing.B) {
	b.ReportAllocs()
	b.SetParallelism(max(1, 200/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			br, err := Start(Options{NoListener: true})
			if err != nil {
				b.Error(err)
				return
			}
			_ = br.Close()
		}
	})
}

// BenchmarkTopicsOneMessage creates b.N topics in one broker, each with a
// producer that stores one 1 KiB message and closes; heap-B/topic is the
// live heap each topic adds once the garbage is collected (run it with
// -benchtime 100000x for the 100,000-topic figure).
func BenchmarkTopicsOneMessage(b *testing.B) {
	br := RunT(b, Options{KeepAliveInterval: time.Hour}) // the raw client answers no PING
	c := dialRaw(b, br)
	c.connect()
	_ = c.nc.SetReadDeadline(time.Time{})
	payload := make([]byte, 1024)
	before := liveHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		topic := fmt.Sprintf("persistent://public/default/many-%d", i)
		id := uint64(i + 1)
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
			Topic: &topic, ProducerId: gproto.Uint64(id), RequestId: gproto.Uint64(id)}})
		name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(id), SequenceId: gproto.Uint64(0), NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1)}, payload)
		c.expect(proto.BaseCommand_SEND_RECEIPT)
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{
			ProducerId: gproto.Uint64(id), RequestId: gproto.Uint64(id)}})
		c.expect(proto.BaseCommand_SUCCESS)
	}
	b.StopTimer()
	b.ReportMetric(float64(liveHeap()-before)/float64(b.N), "heap-B/topic")
	runtime.KeepAlive(br)
}

// liveHeap returns the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkKeySharedFanOut delivers b.N 1 KiB messages of 10,000 keys,
// pipelined by one producer, to a Key_Shared subscription of 1 or 100
// consumers (each on a connection of its own, with permits for everything):
// msgs/s against the one-consumer case is the cost of fanning out.
func BenchmarkKeySharedFanOut(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("consumers=%d", n), func(b *testing.B) { benchmarkKeySharedFanOut(b, n) })
	}
}

func benchmarkKeySharedFanOut(b *testing.B, consumers int) {
	// The raw clients answer no PING, and acknowledge nothing: Pulsar's
	// unacked limits (50,000 per consumer, 200,000 per subscription) would
	// stop dispatch before b.N.
	br := RunT(b, Options{KeepAliveInterval: time.Hour,
		Limits: Limits{MaxUnackedMessagesPerConsumer: -1, MaxUnackedMessagesPerSubscription: -1}})
	topic := fmt.Sprintf("persistent://public/default/fanout-%d", consumers)
	var got atomic.Int64
	done := make(chan struct{})
	var once sync.Once
	var readers sync.WaitGroup
	for i := range consumers {
		c := dialRaw(b, br)
		c.connect()
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
			Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Key_Shared.Enum(),
			ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(1), ConsumerName: gproto.String(fmt.Sprint("c", i)),
			InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
		c.expect(proto.BaseCommand_SUCCESS)
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
			ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(uint32(b.N))}})
		_ = c.nc.SetReadDeadline(time.Time{})
		readers.Go(func() {
			r, buf := bufio.NewReaderSize(c.nc, 64<<10), make([]byte, 64<<10)
			for {
				if err := skipFrames(r, 1, buf); err != nil {
					return // closed at the end of the benchmark
				}
				if got.Add(1) == int64(b.N) {
					once.Do(func() { close(done) })
				}
			}
		})
	}
	p, name := rawProducer(b, br, topic)
	_ = p.nc.SetReadDeadline(time.Time{})
	frames := make([][]byte, 10000)
	for i := range frames {
		f, err := wire.AppendPayloadFrame(nil, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(0), NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1),
				PartitionKey: gproto.String(fmt.Sprint("key-", i))}, make([]byte, 1024))
		if err != nil {
			b.Fatal(err)
		}
		frames[i] = f
	}
	b.SetBytes(1024)
	b.ResetTimer()
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.nc, 64<<10)
		for i := range b.N {
			if _, err := w.Write(frames[i%len(frames)]); err != nil {
				errc <- err
				return
			}
		}
		errc <- w.Flush()
	}()
	receipts := bufio.NewReaderSize(p.nc, 64<<10)
	if err := skipFrames(receipts, b.N, make([]byte, 64<<10)); err != nil {
		b.Fatal(err)
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d messages delivered after a minute", got.Load(), b.N)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	_ = br.Close()
	readers.Wait()
}
