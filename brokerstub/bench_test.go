package brokerstub

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// BenchmarkStart measures starting and closing an in-process broker.
func BenchmarkStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		br, err := Start(Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = br.Close()
	}
}

// The benchmarks below drive the stub over TCP with pre-encoded frames and
// read its answers by their size prefix without decoding them, so that
// allocs/op is the broker's own: per SEND (BenchmarkSendReceipt) or per
// MESSAGE (BenchmarkDispatch).

// benchProducer attaches producer id to topic on a new raw connection and
// returns it with one SEND frame of a payload bytes entry, encoded once.
func benchProducer(b testing.TB, br *Broker, topic string, id uint64, payload []byte) (*rawClient, []byte) {
	c := dialRaw(b, br)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: gproto.Uint64(id), RequestId: gproto.Uint64(1)}})
	name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
	frame, err := wire.AppendPayloadFrame(nil, &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(id), SequenceId: gproto.Uint64(0), NumMessages: gproto.Int32(1)}},
		&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1)}, payload)
	if err != nil {
		b.Fatal(err)
	}
	_ = c.nc.SetReadDeadline(time.Time{}) // the benchmark reads for as long as it takes
	return c, frame
}

// skipFrames reads n frames from r by their size prefix, into buf.
func skipFrames(r *bufio.Reader, n int, buf []byte) error {
	var hdr [4]byte
	for range n {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return err
		}
		size := int64(binary.BigEndian.Uint32(hdr[:]))
		for size > 0 {
			k, err := r.Read(buf[:min(int64(len(buf)), size)])
			if err != nil {
				return err
			}
			size -= int64(k)
		}
	}
	return nil
}

// writeFrames writes n copies of frame on c from a goroutine of its own
// and reports the outcome on the channel it returns.
func writeFrames(c *rawClient, frame []byte, n int) <-chan error {
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(c.nc, 64<<10)
		for range n {
			if _, err := w.Write(frame); err != nil {
				errc <- err
				return
			}
		}
		errc <- w.Flush()
	}()
	return errc
}

// sendAndSkipReceipts writes n copies of frame on c while it reads n
// answers.
func sendAndSkipReceipts(b *testing.B, c *rawClient, frame []byte, n int) {
	errc := writeFrames(c, frame, n)
	if err := skipFrames(bufio.NewReaderSize(c.nc, 64<<10), n, make([]byte, 64<<10)); err != nil {
		b.Fatal(err)
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSendReceipt measures the stub's SEND-to-receipt path: 1 KiB
// entries from one producer, pipelined, in memory. allocs/op counts what
// the stub allocates per SEND (the raw client allocates nothing per frame).
func BenchmarkSendReceipt(b *testing.B) { benchmarkSendReceipt(b, "bench-send", 1024) }

// benchmarkSendReceipt sends b.N entries of size bytes to topic (in
// public/default) from one producer, pipelined, and reads the receipts.
func benchmarkSendReceipt(b *testing.B, topic string, size int) {
	br := RunT(b, Options{KeepAliveInterval: time.Hour}) // the raw clients answer no PING
	c, frame := benchProducer(b, br, "persistent://public/default/"+topic, 1, make([]byte, size))
	b.ReportAllocs()
	b.SetBytes(int64(size))
	b.ResetTimer()
	sendAndSkipReceipts(b, c, frame, b.N)
}

// BenchmarkSendReceipt128KiB is BenchmarkSendReceipt with W1's entries:
// batches of 128 KiB, which the stub keeps, so that MB/s shows what storing
// a byte in memory the process has not touched before costs (the ledger's
// slabs, internal/prefault) and allocs/op that nothing is allocated per
// byte.
func BenchmarkSendReceipt128KiB(b *testing.B) { benchmarkSendReceipt(b, "bench-send-128k", 128<<10) }

// BenchmarkDispatch measures the stub's dispatch path: b.N stored 1 KiB
// entries (stored before the timer starts) delivered to one Exclusive consumer that has the permits for all
// of them. allocs/op counts what the stub allocates per MESSAGE.
func BenchmarkDispatch(b *testing.B) {
	br := RunT(b, Options{KeepAliveInterval: time.Hour}) // the raw clients answer no PING
	topic := "persistent://public/default/bench-dispatch"
	c := rawSubscriber(b, br, topic, 0)
	_ = c.nc.SetReadDeadline(time.Time{})
	// Subscribed first, so that no entry is trimmed at a ledger rollover;
	// no permits yet, so that the entries wait.
	p, frame := benchProducer(b, br, topic, 1, make([]byte, 1024))
	sendAndSkipReceipts(b, p, frame, b.N)
	flow, err := wire.AppendCommand(nil, &proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(uint32(b.N))}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(1024)
	b.ResetTimer()
	c.writeRaw(flow)
	if err := skipFrames(bufio.NewReaderSize(c.nc, 64<<10), b.N, make([]byte, 64<<10)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFsync measures one write of 1 KiB and fsync of a file in the
// benchmark's temporary directory: what one sync per entry costs on this
// disk.
func BenchmarkFsync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1024)
	for b.Loop() {
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDurableProducersOneTopic measures produce throughput with a
// data dir when many producers send to ONE topic, each waiting for its
// receipt before it sends again: the topic pipelines its appends and the
// entries that arrive together share one sync (pipeline.go), so the
// throughput is many times 1/fsync (compare BenchmarkFsync).
func BenchmarkDurableProducersOneTopic(b *testing.B) {
	for _, producers := range []int{1, 64} {
		b.Run(fmt.Sprintf("producers=%d", producers), func(b *testing.B) {
			br := RunT(b, Options{DataDir: b.TempDir(), KeepAliveInterval: time.Hour})
			topic := "persistent://public/default/bench-durable"
			clients := make([]*rawClient, producers)
			frames := make([][]byte, producers)
			for i := range clients {
				clients[i], frames[i] = benchProducer(b, br, topic, uint64(i+1), make([]byte, 1024))
			}
			b.ReportAllocs()
			b.SetBytes(1024)
			start := time.Now()
			b.ResetTimer()
			var wg sync.WaitGroup
			for i, c := range clients {
				n := b.N / producers
				if i < b.N%producers {
					n++
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := bufio.NewReader(c.nc)
					buf := make([]byte, 256)
					for range n {
						if _, err := c.nc.Write(frames[i]); err != nil {
							b.Error(err)
							return
						}
						if err := skipFrames(r, 1, buf); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "entries/s")
		})
	}
}

// BenchmarkSendReceipt1MiB is BenchmarkSendReceipt with W2's entries: 1
// MiB chunks, each of which the stub copies from its recycled frame buffer
// into the ledger's 32 MiB slabs, so that MB/s shows what receiving and
// storing a large entry costs, and B/op that nothing beyond the stored
// copy is allocated per byte.
func BenchmarkSendReceipt1MiB(b *testing.B) { benchmarkSendReceipt(b, "bench-send-1m", 1<<20) }
