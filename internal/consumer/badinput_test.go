package consumer

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// inject hands the engine a MESSAGE as if the broker had sent it.
func inject(t *testing.T, e *Engine[*Message], entry uint64, ackSet []int64, md *proto.MessageMetadata, payload []byte, frameErr error) {
	t.Helper()
	var gen uint64
	var id uint64
	_ = e.call(func() { gen, id = e.gen, e.o.ConsumerID })
	l := uint64(999)
	cm := &proto.CommandMessage{ConsumerId: &id, MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &entry}, AckSet: ackSet}
	f := &wire.Frame{Cmd: &proto.BaseCommand{Type: proto.BaseCommand_MESSAGE.Enum(), Message: cm}}
	if md != nil {
		f.HasPayload, f.Meta, f.Payload = true, md, payload
	}
	e.pushEvent(event{gen: gen, kind: evMessage, msg: cm, frame: f, err: frameErr})
}

// ackLog records the validation errors of the ACK commands the broker
// receives ("" for an ack that reports none).
type ackLog struct {
	mu   sync.Mutex
	acks []string
}

func (a *ackLog) watch(b *brokerstub.Broker) {
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Dir == brokerstub.Inbound && ev.Type == "ACK" {
			a.mu.Lock()
			a.acks = append(a.acks, ev.ValidationError)
			a.mu.Unlock()
		}
		return brokerstub.Action{}
	})
}

func (a *ackLog) has(t *testing.T, validationError string) {
	t.Helper()
	waitFor(t, "ack with "+validationError, func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, s := range a.acks {
			if s == validationError {
				return true
			}
		}
		return false
	})
}

func batchMeta(p *consumertest.Producer, n int32) *proto.MessageMetadata {
	md := p.Meta()
	md.NumMessagesInBatch = gproto.Int32(n)
	return md
}

func TestBadInputIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		var log ackLog
		log.watch(v.b)
		e, out := v.engine(topic, "s", nil)
		three, _ := consumertest.BatchPayload([][]byte{[]byte("a"), []byte("b"), []byte("c")}, nil)

		// ack_set longer than the batch: bits past it are ignored.
		inject(t, e, 1, []int64{0b101 | 1<<40, -1}, batchMeta(p, 3), three, nil)
		if got := names(recvN(t, out, 2)); !slices.Equal(got, []string{"a", "c"}) {
			t.Fatalf("batch with long ack_set: %v", got)
		}

		// A batch whose count does not match its payload.
		inject(t, e, 2, nil, batchMeta(p, 5), three, nil)
		log.has(t, "BatchDeSerializeError")

		// A payload that does not decompress.
		md := p.Meta()
		md.Compression = proto.CompressionType_LZ4.Enum()
		md.UncompressedSize = gproto.Uint32(100)
		inject(t, e, 3, nil, md, []byte("definitely not lz4"), nil)
		log.has(t, "DecompressionError")

		// An uncompressed size far beyond the limit: refused before allocating.
		md = p.Meta()
		md.Compression = proto.CompressionType_ZSTD.Enum()
		md.UncompressedSize = gproto.Uint32(1 << 31)
		inject(t, e, 4, nil, md, []byte{1, 2, 3}, nil)
		log.has(t, "UncompressedSizeCorruption")

		// A frame whose checksum failed.
		inject(t, e, 5, nil, nil, nil, &wire.FrameError{Kind: wire.ErrChecksum})
		log.has(t, "ChecksumMismatch")

		// The consumer keeps going.
		if _, err := p.Send(ctxT(t), []byte("fine"), ""); err != nil {
			t.Fatal(err)
		}
		if m := recv(t, out); string(m.Payload) != "fine" {
			t.Fatalf("got %q", m.Payload)
		}
	})
}

// TestLyingChunkSizes: chunks whose sizes do not add up are dropped as
// corrupt (acknowledged), and a chunk claiming a huge total is refused
// before anything is allocated; the consumer goes on.
func TestLyingChunkSizes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		cs, _ := p.Chunks(noise(2000, 1), 1000, compress.NONE)
		// The last chunk brings more than total_chunk_msg_size.
		if _, err := p.SendRaw(ctxT(t), cs[0].Meta, cs[0].Payload); err != nil {
			t.Fatal(err)
		}
		lie, err := p.SendRaw(ctxT(t), cs[1].Meta, append(cs[1].Payload, 1, 2, 3))
		if err != nil {
			t.Fatal(err)
		}
		// A chunk 0 claiming 2 GiB.
		huge, _ := p.Chunks(noise(2000, 2), 1000, compress.NONE)
		huge[0].Meta.TotalChunkMsgSize = gproto.Int32(1<<31 - 1)
		huge[0].Meta.NumChunksFromMsg = gproto.Int32(3000)
		if _, err := p.SendRaw(ctxT(t), huge[0].Meta, huge[0].Payload); err != nil {
			t.Fatal(err)
		}
		fine, _ := p.Send(ctxT(t), []byte("fine"), "")
		var log ackLog
		log.watch(v.b)
		e, out := v.engine(topic, "s", func(o *Options[*Message]) { o.AckIncompleteChunks = true })
		m := recv(t, out)
		if string(m.Payload) != "fine" {
			t.Fatalf("got %q", trim(m.Payload))
		}
		log.has(t, "UncompressedSizeCorruption")
		if err := e.Ack(ctxT(t), m.ID); err != nil {
			t.Fatal(err)
		}
		v.waitCursor(topic, "s", ackedThrough(fine))
		_ = lie
		expectNone(t, out, 20*time.Millisecond)
	})
}

// TestUnknownIDErrors: only an id that names no message (a batch index
// past its batch's size) is refused; a batch index of an entry this engine
// does not track is accepted and, without BatchIndexAck, sends nothing (it
// would acknowledge the siblings too).
func TestUnknownIDErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		var log ackLog
		log.watch(v.b)
		e, _ := v.engine(topic, "s", nil)
		if err := e.Ack(ctxT(t), messageidBatch(5, 3, 2)); !errors.Is(err, ErrUnknownID) {
			t.Fatalf("index past the batch size: err = %v", err)
		}
		for _, id := range []messageid.ID{messageidBatch(5, 2, 0), messageidBatch(5, 2, 8)} {
			if err := e.Ack(ctxT(t), id); err != nil {
				t.Fatalf("untracked %v: err = %v", id, err)
			}
		}
		synctest.Wait()
		log.mu.Lock()
		defer log.mu.Unlock()
		if len(log.acks) != 0 {
			t.Fatalf("untracked batch indexes sent %d acks", len(log.acks))
		}
	})
}

func messageidBatch(entry int64, idx, size int32) messageid.ID {
	return messageid.New(7, entry, idx, -1, size)
}
