package pulsar

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

var testTopicSeq atomic.Int64

// testTopic returns a topic name unique in the test binary.
func testTopic(t *testing.T) string {
	return "persistent://public/default/" + regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-") +
		"-" + strconv.FormatInt(testTopicSeq.Add(1), 10)
}

// testClient returns a client on b's in-memory connections.
func testClient(t *testing.T, b *brokerstub.Broker, opts ...ClientOptions) *client {
	t.Helper()
	var o ClientOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	o.URL, o.Dialer = b.URL(), b.Dial
	if o.OperationTimeout == 0 {
		o.OperationTimeout = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = clientLogger()
	}
	c, err := newClient(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// testProducer creates a producer or fails the test.
func testProducer(t *testing.T, c Client, opts ProducerOptions) Producer {
	t.Helper()
	p, err := c.CreateProducer(opts)
	if err != nil {
		t.Fatalf("create producer: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// ctxFor returns a context ending with the test or after d.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// got is one message as a consumer sees it, decoded from the wire.
type got struct {
	ID      messageid.MessageID
	Payload []byte
	Meta    *proto.MessageMetadata       // the entry's (for chunks: the last chunk's)
	Single  *proto.SingleMessageMetadata // set for a message of a batch
	Chunked bool
	Entry   int // index of the entry it came in, per partition
}

// Key returns the message's partition key.
func (g got) Key() string {
	if g.Single != nil {
		return g.Single.GetPartitionKey()
	}
	return g.Meta.GetPartitionKey()
}

// rawConsumer subscribes with internal/conn only (no SDK consumer) and
// decodes what arrives: chunks reassembled, payloads decompressed, batches
// split.
type rawConsumer struct {
	t  *testing.T
	c  *conn.Conn
	mu sync.Mutex
	// per consumer id (partition)
	asm     map[uint64]*chunk.Assembler
	entries map[uint64]int
	msgs    []got
	errs    []error
	wake    chan struct{}
	lenient bool // ignore refused chunks (of messages that failed on purpose)
}

// rawSubscribe subscribes to every partition of topic (or the topic) from
// the earliest message.
func rawSubscribe(t *testing.T, b *brokerstub.Broker, topic string, partitions int) *rawConsumer {
	t.Helper()
	ctx := ctxFor(t, 10*time.Second)
	c, err := conn.Dial(ctx, b.Addr(), conn.Options{Dial: b.Dial, OperationTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rc := &rawConsumer{t: t, c: c, asm: map[uint64]*chunk.Assembler{}, entries: map[uint64]int{}, wake: make(chan struct{}, 1)}
	names := []string{topic}
	if partitions > 0 {
		names = names[:0]
		for i := range partitions {
			names = append(names, topic+"-partition-"+strconv.Itoa(i))
		}
	}
	for i, name := range names {
		id := uint64(i + 1)
		rc.asm[id] = chunk.NewAssembler(chunk.Options{MaxPendingBytes: 1 << 30})
		c.RegisterConsumer(id, &rawHandler{rc: rc, id: id, partition: int32(i - boolInt(partitions == 0))})
		rid := c.NewRequestID()
		_, err := c.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
			Topic: gproto.String(name), Subscription: gproto.String("raw"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
			ConsumerId: gproto.Uint64(id), RequestId: gproto.Uint64(rid), InitialPosition: proto.CommandSubscribe_Earliest.Enum(),
		}})
		if err != nil {
			t.Fatalf("subscribe %s: %v", name, err)
		}
		if err := c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
			ConsumerId: gproto.Uint64(id), MessagePermits: gproto.Uint32(1 << 20)}}); err != nil {
			t.Fatal(err)
		}
	}
	return rc
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

type rawHandler struct {
	rc        *rawConsumer
	id        uint64
	partition int32
}

func (h *rawHandler) Message(m *proto.CommandMessage, f *wire.Frame, err error) {
	h.rc.add(h, m, f, err)
}
func (h *rawHandler) ActiveChanged(bool) {}
func (h *rawHandler) ReachedEndOfTopic() {}
func (h *rawHandler) Closed()            {}
func (h *rawHandler) ConnectionClosed()  {}

func (rc *rawConsumer) fail(err error) {
	rc.errs = append(rc.errs, err)
}

// add decodes one delivered entry.
func (rc *rawConsumer) add(h *rawHandler, m *proto.CommandMessage, f *wire.Frame, ferr error) {
	rc.mu.Lock()
	defer func() {
		rc.mu.Unlock()
		select {
		case rc.wake <- struct{}{}:
		default:
		}
	}()
	if ferr != nil {
		rc.fail(ferr)
		return
	}
	mid := m.GetMessageId()
	id := messageid.New(int64(mid.GetLedgerId()), int64(mid.GetEntryId()), -1, h.partition, 0)
	md, payload := f.Meta, f.Payload
	if debugRaw {
		rc.t.Logf("entry %v seq %d chunk %d/%d uuid %s batch %v", id, md.GetSequenceId(), md.GetChunkId(), md.GetNumChunksFromMsg(), md.GetUuid(), md.NumMessagesInBatch != nil)
	}
	var cid messageid.MessageID = id
	chunked := md.GetNumChunksFromMsg() > 1
	if chunked {
		whole, _, err := rc.asm[h.id].Add(chunk.Incoming{Header: wire.ChunkHeader(md), Payload: payload, ID: id})
		if errors.Is(err, chunk.ErrDuplicate) || errors.Is(err, chunk.ErrUnknownMessage) || (err != nil && rc.lenient) {
			// A chunk resent after its receipt was lost (before or after the
			// message completed), or an expected gap.
			return
		}
		if err != nil {
			rc.fail(err)
			return
		}
		if whole == nil {
			return
		}
		payload, cid = whole.Payload, whole.ID
	}
	entry := rc.entries[h.id]
	rc.entries[h.id]++
	codec, err := compress.Lookup(compress.Type(md.GetCompression()))
	if err != nil {
		rc.fail(err)
		return
	}
	plain, err := compress.Decompress(codec, nil, payload, int(md.GetUncompressedSize()), 1<<30)
	if err != nil {
		rc.fail(err)
		return
	}
	if !wire.IsBatch(md) {
		rc.msgs = append(rc.msgs, got{ID: cid, Payload: plain, Meta: md, Chunked: chunked, Entry: entry})
		return
	}
	n := int(md.GetNumMessagesInBatch())
	err = wire.SplitBatch(plain, n, func(i int, smm *proto.SingleMessageMetadata, body []byte) error {
		bid := messageid.New(id.LedgerID(), id.EntryID(), int32(i), h.partition, int32(n))
		rc.msgs = append(rc.msgs, got{ID: bid, Payload: body, Meta: md, Single: smm, Entry: entry})
		return nil
	})
	if err != nil {
		rc.fail(err)
	}
}

// wait returns once n messages arrived, failing the test after d.
func (rc *rawConsumer) wait(n int, d time.Duration) []got {
	rc.t.Helper()
	deadline := time.After(d)
	for {
		rc.mu.Lock()
		if len(rc.errs) > 0 {
			errs := rc.errs
			rc.mu.Unlock()
			rc.t.Fatalf("raw consumer: %v", errs)
		}
		if len(rc.msgs) >= n {
			out := append([]got(nil), rc.msgs...)
			rc.mu.Unlock()
			return out
		}
		have := len(rc.msgs)
		rc.mu.Unlock()
		select {
		case <-rc.wake:
		case <-deadline:
			rc.t.Fatalf("raw consumer: %d of %d messages after %v", have, n, d)
		}
	}
}

// count returns how many messages arrived so far.
func (rc *rawConsumer) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.msgs)
}

// seqOf returns the sequence id of a command that has one.
func seqOf(ev brokerstub.Event) (uint64, bool) { return ev.SequenceID, ev.HasSequenceID }

// payloadOf returns n bytes of a recognizable, poorly compressible pattern
// (with compressible runs, so that every codec shrinks it a little).
func payloadOf(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		if i%64 < 16 {
			b[i] = seed
			continue
		}
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// compressionOf is the wire enum of a codec.
func compressionOf(c CompressionType) proto.CompressionType { return proto.CompressionType(c) }

var debugRaw = false
