package console

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/compress"
	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

func avroLong(dst []byte, v int64) []byte {
	return binary.AppendUvarint(dst, uint64((v<<1)^(v>>63)))
}

func avroString(dst []byte, s string) []byte { return append(avroLong(dst, int64(len(s))), s...) }

func TestDecodeBySchema(t *testing.T) {
	const def = `{"type":"record","name":"Order","namespace":"shop","fields":[
		{"name":"id","type":"long"},{"name":"item","type":"string"},
		{"name":"note","type":["null","string"]},{"name":"tags","type":{"type":"array","items":"string"}},
		{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},
		{"name":"price","type":"double"}]}`
	var raw []byte
	raw = avroLong(raw, 42)
	raw = avroString(raw, "widget")
	raw = avroLong(raw, 1) // union branch 1: string
	raw = avroString(raw, "fragile")
	raw = avroLong(raw, 2) // one block of two items
	raw = avroString(raw, "x")
	raw = avroString(raw, "y")
	raw = avroLong(raw, 0)
	raw = avroLong(raw, 1) // enum B
	raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(9.5))
	got, how := Decode("AVRO", []byte(def), raw)
	if how != "avro" {
		t.Fatalf("decoded as %s: %s", how, got)
	}
	for _, want := range []string{`"id": 42`, `"item": "widget"`, `"note": "fragile"`, `"x"`, `"kind": "B"`, `"price": 9.5`} {
		if !strings.Contains(got, want) {
			t.Errorf("avro: %s lacks %s", got, want)
		}
	}
	// Bytes that do not match the schema are shown, not decoded.
	if _, how := Decode("AVRO", []byte(def), raw[:5]); how == "avro" {
		t.Error("a truncated Avro payload decoded")
	}
	for _, tc := range []struct {
		typ  string
		raw  []byte
		want string
		how  string
	}{
		{"JSON", []byte(`{"a":1}`), "{\n  \"a\": 1\n}", "json"},
		{"STRING", []byte("héllo"), "héllo", "string"},
		{"INT32", binary.BigEndian.AppendUint32(nil, uint32(0xfffffffe)), "-2", "int32"},
		{"INT64", binary.BigEndian.AppendUint64(nil, 1<<40), "1099511627776", "int64"},
		{"BOOLEAN", []byte{1}, "true", "boolean"},
		{"DOUBLE", binary.BigEndian.AppendUint64(nil, math.Float64bits(0.25)), "0.25", "double"},
		{"INT32", []byte{1, 2}, "\x01\x02", "text"}, // wrong size: shown raw
		{"", []byte{0xff, 0x00}, "ff00", "bytes"},
	} {
		got, how := Decode(tc.typ, nil, tc.raw)
		if got != tc.want || how != tc.how {
			t.Errorf("%s %x: %q as %s, want %q as %s", tc.typ, tc.raw, got, how, tc.want, tc.how)
		}
	}
}

// TestDecodeAvroHostile: nesting, huge lengths and counts in a payload or
// a schema end in a plain display, never a panic or a large allocation.
func TestDecodeAvroHostile(t *testing.T) {
	deep := strings.Repeat(`{"type":"array","items":`, 100) + `"long"` + strings.Repeat("}", 100)
	for _, tc := range []struct{ def, raw string }{
		{`"string"`, string(avroLong(nil, 1<<40))},
		{`{"type":"array","items":"null"}`, string(avroLong(nil, 1<<50))},
		{`{"type":"map","values":"long"}`, string(avroLong(nil, -(1 << 40)))},
		{deep, strings.Repeat("\x02", 200)},
		{`["null"]`, string(avroLong(nil, 7))},
		{`{"type":"fixed","name":"F","size":1e12}`, "ab"},
		{`"Unknown"`, "ab"},
		{`not json`, "ab"},
	} {
		if _, how := Decode("AVRO", []byte(tc.def), []byte(tc.raw)); how == "avro" {
			t.Errorf("schema %.40s: hostile payload decoded", tc.def)
		}
	}
}

func TestDecodeEntryBatchCompressedChunk(t *testing.T) {
	var batch []byte
	for i, body := range []string{"one", "two"} {
		smm := &pb.SingleMessageMetadata{PartitionKey: protobuf.String([]string{"k1", "k2"}[i]),
			Properties: []*pb.KeyValue{{Key: protobuf.String("i"), Value: protobuf.String(body)}}}
		var err error
		if batch, err = wire.AppendBatchEntry(batch, smm, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	codec, err := compress.Lookup(compress.ZLIB)
	if err != nil {
		t.Fatal(err)
	}
	payload := codec.Compress(nil, batch)
	md := &pb.MessageMetadata{ProducerName: protobuf.String("p"), SequenceId: protobuf.Uint64(7), PublishTime: protobuf.Uint64(1),
		NumMessagesInBatch: protobuf.Int32(2), Compression: pb.CompressionType_ZLIB.Enum(), UncompressedSize: protobuf.Uint32(uint32(len(batch)))}
	meta, err := protobuf.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	e := DecodeEntry("3:4", meta, payload, len(meta)+len(payload))
	if e.Error != "" || e.Batch != 2 || e.Compression != "ZLIB" || len(e.Messages) != 2 {
		t.Fatalf("entry = %+v", e)
	}
	e.Decode("", nil)
	if got := e.Messages[1]; got.Value != "two" || got.Key != "k2" || got.Properties["i"] != "two" || got.Index != 1 || got.Raw != nil {
		t.Fatalf("second message = %+v", got)
	}

	// A batch that claims more messages than it holds is reported.
	md.Compression, md.UncompressedSize, md.NumMessagesInBatch = nil, nil, protobuf.Int32(3)
	meta, _ = protobuf.Marshal(md)
	if e := DecodeEntry("3:5", meta, batch, 0); !strings.Contains(e.Error, "batch does not decode") {
		t.Fatalf("bad batch: %+v", e)
	}
	// A compressed size beyond the limit is refused before allocating.
	md.NumMessagesInBatch, md.Compression, md.UncompressedSize = nil, pb.CompressionType_ZLIB.Enum(), protobuf.Uint32(1<<31)
	meta, _ = protobuf.Marshal(md)
	if e := DecodeEntry("3:6", meta, payload, 0); !strings.Contains(e.Error, "does not decompress") {
		t.Fatalf("huge uncompressed size: %+v", e)
	}
	// A chunk is shown with its header.
	chunk := &pb.MessageMetadata{Uuid: protobuf.String("p-7"), ChunkId: protobuf.Int32(1), NumChunksFromMsg: protobuf.Int32(3), TotalChunkMsgSize: protobuf.Int32(30)}
	meta, _ = protobuf.Marshal(chunk)
	if e := DecodeEntry("3:7", meta, []byte("0123456789"), 0); e.Chunk == nil || e.Chunk.ID != 1 || e.Chunk.Of != 3 || len(e.Messages) != 1 {
		t.Fatalf("chunk: %+v", e)
	}
	if e := DecodeEntry("3:8", []byte{0xff, 0xff}, nil, 0); !strings.Contains(e.Error, "metadata") {
		t.Fatalf("bad metadata: %+v", e)
	}
}
