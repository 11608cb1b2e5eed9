package wire

import (
	"math"
	"testing"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/proto"
)

func TestChunkHeaderRoundTrip(t *testing.T) {
	for _, h := range []chunk.Header{
		{UUID: "p-3", ChunkID: 2, NumChunks: 4, TotalSize: 1000},
		{UUID: "x"},
		{UUID: "", ChunkID: -1, NumChunks: math.MaxInt32, TotalSize: math.MinInt32},
	} {
		md := &proto.MessageMetadata{ProducerName: protobuf.String("p"), SequenceId: protobuf.Uint64(1), PublishTime: protobuf.Uint64(1),
			PartitionKey: protobuf.String("k")}
		SetChunkHeader(md, h)
		if got := ChunkHeader(md); got != h {
			t.Errorf("ChunkHeader(SetChunkHeader(%+v)) = %+v", h, got)
		}
		if md.GetProducerName() != "p" || md.GetPartitionKey() != "k" {
			t.Errorf("SetChunkHeader(%+v) changed other fields: %v", h, md)
		}
		// The fields survive encoding, at their field numbers.
		b, err := protobuf.Marshal(md)
		if err != nil {
			t.Fatal(err)
		}
		var back proto.MessageMetadata
		if err := protobuf.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if got := ChunkHeader(&back); got != h {
			t.Errorf("after encoding: %+v, want %+v", got, h)
		}
	}
}

func TestChunkHeaderOfPlainMetadata(t *testing.T) {
	if h := ChunkHeader(nil); h != (chunk.Header{}) {
		t.Errorf("ChunkHeader(nil) = %+v", h)
	}
	md := &proto.MessageMetadata{Uuid: protobuf.String("p-1"), ChunkId: protobuf.Int32(1)}
	if h := ChunkHeader(md); h != (chunk.Header{UUID: "p-1", ChunkID: 1}) {
		t.Errorf("ChunkHeader(%v) = %+v", md, h)
	}
}

// TestMetadataOverheadBoundsSetChunkHeader: chunk.MetadataOverhead bounds
// what SetChunkHeader adds to the encoded metadata, so that a producer's
// chunk size computed with it always fits the broker's max message size.
func TestMetadataOverheadBoundsSetChunkHeader(t *testing.T) {
	base := &proto.MessageMetadata{ProducerName: protobuf.String("producer"), SequenceId: protobuf.Uint64(1 << 40), PublishTime: protobuf.Uint64(1)}
	for _, uuid := range []string{"", "p-1", chunk.UUID("a-long-producer-name", math.MaxUint64), string(make([]byte, 300))} {
		for _, h := range []chunk.Header{
			{UUID: uuid},
			{UUID: uuid, ChunkID: 1, NumChunks: 2, TotalSize: 200},
			{UUID: uuid, ChunkID: math.MaxInt32 - 1, NumChunks: math.MaxInt32, TotalSize: math.MaxInt32},
		} {
			md := protobuf.Clone(base).(*proto.MessageMetadata)
			SetChunkHeader(md, h)
			got, bound := protobuf.Size(md)-protobuf.Size(base), chunk.MetadataOverhead(uuid)
			if got > bound {
				t.Errorf("SetChunkHeader(%+v) adds %d bytes, MetadataOverhead says at most %d", h, got, bound)
			}
			if h.NumChunks == math.MaxInt32 && got != bound {
				t.Errorf("widest header adds %d bytes, MetadataOverhead %d: the bound is not tight", got, bound)
			}
		}
	}
}
