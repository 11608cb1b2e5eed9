package pulsar

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// sinkBroker is a minimal broker for send-path benchmarks: it answers the
// handshake, lookups and producer creation, acknowledges every SEND, and
// discards payloads through one reused buffer, so that the bytes allocated
// during a benchmark are the client's.
type sinkBroker struct {
	maxMessageSize int32
}

func (s sinkBroker) Dial(_ context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	go s.serve(server)
	return client, nil
}

func (s sinkBroker) serve(nc net.Conn) {
	defer nc.Close()
	var hdr [8]byte
	cmdBuf := make([]byte, 64<<10)
	discard := make([]byte, 256<<10)
	out := make([]byte, 0, 1024)
	entry := uint64(0)
	for {
		if _, err := io.ReadFull(nc, hdr[:]); err != nil {
			return
		}
		total, cmdSize := binary.BigEndian.Uint32(hdr[:4]), binary.BigEndian.Uint32(hdr[4:])
		if int(cmdSize) > len(cmdBuf) {
			return
		}
		if _, err := io.ReadFull(nc, cmdBuf[:cmdSize]); err != nil {
			return
		}
		for rest := int(total) - 4 - int(cmdSize); rest > 0; {
			n, err := nc.Read(discard[:min(rest, len(discard))])
			if err != nil {
				return
			}
			rest -= n
		}
		var cmd proto.BaseCommand
		if err := gproto.Unmarshal(cmdBuf[:cmdSize], &cmd); err != nil {
			return
		}
		var resp *proto.BaseCommand
		switch cmd.GetType() {
		case proto.BaseCommand_CONNECT:
			resp = &proto.BaseCommand{Type: proto.BaseCommand_CONNECTED.Enum(), Connected: &proto.CommandConnected{
				ServerVersion: gproto.String("sink"), ProtocolVersion: gproto.Int32(20), MaxMessageSize: gproto.Int32(s.maxMessageSize)}}
		case proto.BaseCommand_PARTITIONED_METADATA:
			resp = &proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA_RESPONSE.Enum(),
				PartitionMetadataResponse: &proto.CommandPartitionedTopicMetadataResponse{
					RequestId: cmd.PartitionMetadata.RequestId, Partitions: gproto.Uint32(0)}}
		case proto.BaseCommand_LOOKUP:
			resp = &proto.BaseCommand{Type: proto.BaseCommand_LOOKUP_RESPONSE.Enum(), LookupTopicResponse: &proto.CommandLookupTopicResponse{
				RequestId: cmd.LookupTopic.RequestId, Response: proto.CommandLookupTopicResponse_Connect.Enum(),
				BrokerServiceUrl: gproto.String("pulsar://sink:6650"), ProxyThroughServiceUrl: gproto.Bool(true)}}
		case proto.BaseCommand_PRODUCER:
			resp = &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER_SUCCESS.Enum(), ProducerSuccess: &proto.CommandProducerSuccess{
				RequestId: cmd.Producer.RequestId, ProducerName: gproto.String("sink-producer")}}
		case proto.BaseCommand_CLOSE_PRODUCER:
			resp = &proto.BaseCommand{Type: proto.BaseCommand_SUCCESS.Enum(), Success: &proto.CommandSuccess{RequestId: cmd.CloseProducer.RequestId}}
		case proto.BaseCommand_PING:
			resp = &proto.BaseCommand{Type: proto.BaseCommand_PONG.Enum(), Pong: &proto.CommandPong{}}
		case proto.BaseCommand_SEND:
			entry++
			resp = &proto.BaseCommand{Type: proto.BaseCommand_SEND_RECEIPT.Enum(), SendReceipt: &proto.CommandSendReceipt{
				ProducerId: cmd.Send.ProducerId, SequenceId: cmd.Send.SequenceId,
				MessageId: &proto.MessageIdData{LedgerId: gproto.Uint64(1), EntryId: gproto.Uint64(entry)}}}
		default:
			continue
		}
		var err error
		if out, err = wire.AppendCommand(out[:0], resp); err != nil {
			return
		}
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}

// BenchmarkProducerChunked64MiB sends one 64 MiB message per iteration,
// chunked at the default 5 MiB max message size, and reports the bytes the
// client allocated per payload byte (alloc-B/payload-B; the official Go
// client allocates 3.5x). With NONE the chunks are slices of the caller's
// payload; with a codec the whole payload is compressed once into one
// buffer.
func BenchmarkProducerChunked64MiB(b *testing.B) {
	const size = 64 << 20
	payload := payloadOf(size, 5)
	for _, codec := range codecs {
		b.Run(codecName(codec), func(b *testing.B) {
			sink := sinkBroker{maxMessageSize: wire.DefaultMaxMessageSize}
			c, err := newClient(ClientOptions{URL: "pulsar://sink:6650", Dialer: sink.Dial})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			p, err := c.CreateProducer(ProducerOptions{Topic: "bench-chunked", EnableChunking: true, DisableBatching: true,
				CompressionType: codec})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			ctx := context.Background()
			if _, err := p.Send(ctx, &ProducerMessage{Payload: payload}); err != nil { // warm up
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				id, err := p.Send(ctx, &ProducerMessage{Payload: payload})
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := id.(ChunkMessageID); !ok {
					b.Fatalf("id %T", id)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/size, "alloc-B/payload-B")
		})
	}
}

// BenchmarkProducerProduce1KiB measures batched produce throughput of 1 KiB
// messages against the in-process stub, as BenchmarkOfficialProduce1KiB
// does for the official client in integration/.
func BenchmarkProducerProduce1KiB(b *testing.B) {
	stub := brokerstub.RunT(b)
	c, err := newClient(ClientOptions{URL: stub.URL(), Dialer: stub.Dial})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: "bench-produce", BatchingMaxPublishDelay: 5 * time.Millisecond,
		MaxPendingMessages: 10000})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	payload := make([]byte, 1024)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	ctx := context.Background()
	errs := make(chan error, 1)
	for b.Loop() {
		p.SendAsync(ctx, &ProducerMessage{Payload: payload}, func(_ MessageID, _ *ProducerMessage, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	if err := p.FlushWithCtx(ctx); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkProducerBatched1KiBSink is W1's client side alone: 1 KiB
// messages batched (W1's delay and pending limit) against sinkBroker,
// which acknowledges every SEND, so that ns/op and allocs/op are the
// producer's per message, with no broker work in them. cpu-ns/op is the
// process's CPU time per message (the sink's share included), which other
// work on a shared machine moves less than ns/op. Of its allocations, one
// is the benchmark's own ProducerMessage (208 B), as in W1.
func BenchmarkProducerBatched1KiBSink(b *testing.B) {
	sink := sinkBroker{maxMessageSize: wire.DefaultMaxMessageSize}
	c, err := newClient(ClientOptions{URL: "pulsar://sink:6650", Dialer: sink.Dial})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: "bench-batched", BatchingMaxPublishDelay: 10 * time.Millisecond,
		MaxPendingMessages: 10000})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	payload := make([]byte, 1024)
	ctx := context.Background()
	done := func(_ MessageID, _ *ProducerMessage, err error) {
		if err != nil {
			b.Error(err)
		}
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		p.SendAsync(ctx, &ProducerMessage{Payload: payload}, done)
	}
	if err := p.FlushWithCtx(ctx); err != nil {
		b.Fatal(err)
	}
	if used := processCPU() - cpu; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
