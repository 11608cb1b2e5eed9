// Package consumertest is a raw producer for consumer tests: it writes
// entries exactly as asked — plain, batched, compressed, chunked, and
// deliberately malformed ones — over internal/conn and internal/wire, with
// no producer logic of its own.
package consumertest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

var producerSeq atomic.Uint64

// Producer sends raw entries to one topic. Its methods are safe for
// concurrent use; sends are serialized.
type Producer struct {
	cn        *conn.Conn
	id        uint64
	name      string
	partition int32
	receipts  chan receipt

	mu  sync.Mutex
	seq uint64
}

type receipt struct {
	id  *proto.MessageIdData
	err error
}

// Receipt implements conn.ProducerHandler.
func (p *Producer) Receipt(r *proto.CommandSendReceipt) { p.receipts <- receipt{id: r.GetMessageId()} }

// SendError implements conn.ProducerHandler.
func (p *Producer) SendError(e *proto.CommandSendError) {
	p.receipts <- receipt{err: fmt.Errorf("send error %s: %s", e.GetError(), e.GetMessage())}
}

// Closed implements conn.ProducerHandler.
func (p *Producer) Closed() {}

// ConnectionClosed implements conn.ProducerHandler.
func (p *Producer) ConnectionClosed() {}

// New dials addr with dial (brokerstub's Dial) and creates a producer on
// topic; partition is the index put into returned ids (-1 for none).
func New(ctx context.Context, dial conn.DialFunc, addr, topic string, partition int32) (*Producer, error) {
	cn, err := conn.Dial(ctx, addr, conn.Options{Dial: dial})
	if err != nil {
		return nil, err
	}
	n := producerSeq.Add(1)
	p := &Producer{cn: cn, id: n, name: fmt.Sprintf("raw-%d", n), partition: partition, receipts: make(chan receipt, 1024)}
	cn.RegisterProducer(p.id, p)
	rid := cn.NewRequestID()
	_, err = cn.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: gproto.String(topic), ProducerId: &p.id, RequestId: &rid, ProducerName: gproto.String(p.name)}})
	if err != nil {
		cn.Close()
		return nil, err
	}
	return p, nil
}

// Close closes the producer's connection.
func (p *Producer) Close() { p.cn.Close() }

// Name returns the producer name.
func (p *Producer) Name() string { return p.name }

// Meta returns metadata with the producer's name, the next sequence id and
// the current time as publish time.
func (p *Producer) Meta() *proto.MessageMetadata {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	return &proto.MessageMetadata{ProducerName: gproto.String(p.name), SequenceId: gproto.Uint64(p.seq),
		PublishTime: gproto.Uint64(uint64(time.Now().UnixMilli()))}
}

// SendRaw sends one entry as is and returns its id.
func (p *Producer) SendRaw(ctx context.Context, md *proto.MessageMetadata, payload []byte) (messageid.ID, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seq := md.GetSequenceId()
	num := int32(1)
	if md.NumMessagesInBatch != nil {
		num = md.GetNumMessagesInBatch()
	}
	cmd := &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: &p.id, SequenceId: &seq, NumMessages: &num, IsChunk: gproto.Bool(md.Uuid != nil)}}
	if err := p.cn.SendPayload(cmd, md, payload); err != nil {
		return messageid.ID{}, err
	}
	select {
	case r := <-p.receipts:
		if r.err != nil {
			return messageid.ID{}, r.err
		}
		return messageid.New(int64(r.id.GetLedgerId()), int64(r.id.GetEntryId()), -1, p.partition, 0), nil
	case <-ctx.Done():
		return messageid.ID{}, ctx.Err()
	}
}

// Send sends a plain message; key may be empty.
func (p *Producer) Send(ctx context.Context, payload []byte, key string) (messageid.ID, error) {
	md := p.Meta()
	if key != "" {
		md.PartitionKey = gproto.String(key)
	}
	return p.SendRaw(ctx, md, payload)
}

// SendCompressed sends a plain message compressed with t.
func (p *Producer) SendCompressed(ctx context.Context, payload []byte, t compress.Type) (messageid.ID, error) {
	codec, err := compress.Lookup(t)
	if err != nil {
		return messageid.ID{}, err
	}
	md := p.Meta()
	md.Compression = proto.CompressionType(t).Enum()
	md.UncompressedSize = gproto.Uint32(uint32(len(payload)))
	return p.SendRaw(ctx, md, codec.Compress(nil, payload))
}

// BatchPayload encodes bodies as a batch payload, each with key keys[i]
// when keys is not nil.
func BatchPayload(bodies [][]byte, keys []string) ([]byte, error) {
	var out []byte
	for i, b := range bodies {
		smm := &proto.SingleMessageMetadata{}
		if keys != nil {
			smm.PartitionKey = gproto.String(keys[i])
		}
		var err error
		if out, err = wire.AppendBatchEntry(out, smm, b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SendBatch sends bodies as one batch entry, optionally compressed, and
// returns the entry's id.
func (p *Producer) SendBatch(ctx context.Context, bodies [][]byte, t compress.Type) (messageid.ID, error) {
	payload, err := BatchPayload(bodies, nil)
	if err != nil {
		return messageid.ID{}, err
	}
	md := p.Meta()
	md.NumMessagesInBatch = gproto.Int32(int32(len(bodies)))
	if t != compress.NONE {
		codec, err := compress.Lookup(t)
		if err != nil {
			return messageid.ID{}, err
		}
		md.Compression = proto.CompressionType(t).Enum()
		md.UncompressedSize = gproto.Uint32(uint32(len(payload)))
		payload = codec.Compress(nil, payload)
	}
	return p.SendRaw(ctx, md, payload)
}

// Chunk is one chunk to send: its metadata (chunk fields applied) and
// payload.
type Chunk struct {
	Meta    *proto.MessageMetadata
	Payload []byte
}

// Chunks splits payload (compressed with t first) into chunks of at most
// chunkSize bytes, all with one sequence id, as a producer would; send them
// with SendRaw in any order to interleave messages.
func (p *Producer) Chunks(payload []byte, chunkSize int, t compress.Type) ([]Chunk, error) {
	base := p.Meta()
	if t != compress.NONE {
		codec, err := compress.Lookup(t)
		if err != nil {
			return nil, err
		}
		base.Compression = proto.CompressionType(t).Enum()
		base.UncompressedSize = gproto.Uint32(uint32(len(payload)))
		payload = codec.Compress(nil, payload)
	}
	parts, err := chunk.Split(p.name, base.GetSequenceId(), payload, chunkSize)
	if err != nil {
		return nil, err
	}
	out := make([]Chunk, len(parts))
	for i, c := range parts {
		md := gproto.Clone(base).(*proto.MessageMetadata)
		wire.SetChunkHeader(md, c.Header)
		out[i] = Chunk{Meta: md, Payload: c.Payload}
	}
	return out, nil
}

// SendChunked sends payload in chunks and returns the message's chunk id
// and every chunk's id.
func (p *Producer) SendChunked(ctx context.Context, payload []byte, chunkSize int, t compress.Type) (messageid.ChunkMessageID, []messageid.ID, error) {
	chunks, err := p.Chunks(payload, chunkSize, t)
	if err != nil {
		return messageid.ChunkMessageID{}, nil, err
	}
	ids := make([]messageid.ID, len(chunks))
	for i, c := range chunks {
		if ids[i], err = p.SendRaw(ctx, c.Meta, c.Payload); err != nil {
			return messageid.ChunkMessageID{}, nil, err
		}
	}
	return messageid.NewChunk(ids[0], ids[len(ids)-1]), ids, nil
}
