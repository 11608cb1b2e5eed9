package console

import (
	"encoding/hex"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/compress"
	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// maxUncompressed bounds the size an entry is decompressed to for the
// message browser.
const maxUncompressed = 8 << 20

// DecodeEntry describes a stored entry: its metadata, and its messages
// split out of a batch and decompressed, their payloads left in Raw for
// the schema decoder. payload is nil for an entry too large to show. Bad
// metadata or payload is reported in Error, never a panic.
func DecodeEntry(pos string, meta, payload []byte, size int) Entry {
	e := Entry{Pos: pos, Size: size, Messages: []Message{}}
	var md pb.MessageMetadata
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(meta, &md); err != nil {
		e.Error = "metadata does not decode: " + err.Error()
		return e
	}
	e.PublishTime = int64(md.GetPublishTime())
	e.Producer, e.Sequence, e.Key = md.GetProducerName(), md.GetSequenceId(), md.GetPartitionKey()
	if k := md.GetOrderingKey(); len(k) > 0 {
		e.Key = string(k)
	}
	e.Properties = props(md.GetProperties())
	e.DeliverAt = md.GetDeliverAtTime()
	if md.TxnidMostBits != nil || md.TxnidLeastBits != nil {
		e.Txn = fmt.Sprintf("(%d,%d)", md.GetTxnidMostBits(), md.GetTxnidLeastBits())
	}
	if md.MarkerType != nil {
		e.Marker = fmt.Sprintf("marker %d", md.GetMarkerType())
	}
	e.Encrypted = len(md.GetEncryptionKeys()) > 0
	if md.NumChunksFromMsg != nil && md.GetNumChunksFromMsg() > 1 {
		e.Chunk = &Chunk{UUID: md.GetUuid(), ID: md.GetChunkId(), Of: md.GetNumChunksFromMsg(), TotalSize: md.GetTotalChunkMsgSize()}
	}
	if md.NumMessagesInBatch != nil {
		e.Batch = md.GetNumMessagesInBatch()
	}
	if c := md.GetCompression(); c != pb.CompressionType_NONE {
		e.Compression = c.String()
	}
	switch {
	case payload == nil:
		e.Error = fmt.Sprintf("payload not shown: entry of %d bytes (a page shows at most 4 MiB an entry, 16 MiB in all; start a page at it with from=%s)", size, pos)
		return e
	case e.Encrypted:
		e.Messages = append(e.Messages, Message{Size: len(payload), Value: hex.EncodeToString(payload[:min(len(payload), maxShown/2)]), Decoding: "encrypted"})
		return e
	case e.Chunk != nil && e.Chunk.Of > 1:
		// A chunk is a slice of the (compressed) message: shown as is.
		e.Messages = append(e.Messages, Message{Size: len(payload), Raw: payload, Properties: nil})
		return e
	}
	body := payload
	if e.Compression != "" {
		codec, err := compress.Lookup(compress.Type(md.GetCompression()))
		if err == nil {
			body, err = compress.Decompress(codec, nil, payload, int(md.GetUncompressedSize()), maxUncompressed)
		}
		if err != nil {
			e.Error = "payload does not decompress: " + err.Error()
			return e
		}
	}
	if !wire.IsBatch(&md) {
		e.Messages = append(e.Messages, Message{Size: len(body), Raw: body, Null: md.GetNullValue(), Key: e.Key, Properties: e.Properties})
		return e
	}
	err := wire.SplitBatch(body, int(e.Batch), func(i int, smm *pb.SingleMessageMetadata, b []byte) error {
		m := Message{Index: i, Size: len(b), Raw: b, Null: smm.GetNullValue(), Key: smm.GetPartitionKey(), Properties: props(smm.GetProperties())}
		if k := smm.GetOrderingKey(); len(k) > 0 {
			m.Key = string(k)
		}
		e.Messages = append(e.Messages, m)
		return nil
	})
	if err != nil {
		e.Error = "batch does not decode: " + err.Error()
	}
	return e
}

func props(kvs []*pb.KeyValue) map[string]string {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}
