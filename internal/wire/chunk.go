package wire

import (
	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/proto"
)

// ChunkHeader returns the chunk fields of md (uuid, chunk_id,
// num_chunks_from_msg, total_chunk_msg_size) as a chunk.Header, for an
// Assembler. Absent fields are zero, and a nil md gives the zero Header;
// the Assembler refuses such headers with chunk.ErrInvalidChunk. This and
// SetChunkHeader are the one conversion between the wire metadata and the
// chunk package.
func ChunkHeader(md *proto.MessageMetadata) chunk.Header {
	return chunk.Header{
		UUID:      md.GetUuid(),
		ChunkID:   md.GetChunkId(),
		NumChunks: md.GetNumChunksFromMsg(),
		TotalSize: md.GetTotalChunkMsgSize(),
	}
}

// SetChunkHeader sets md's chunk fields (uuid, chunk_id,
// num_chunks_from_msg, total_chunk_msg_size) to h's. Every other field is
// left alone, so a producer fills md once and calls SetChunkHeader before
// encoding each chunk. The encoded size grows by at most
// chunk.MetadataOverhead(h.UUID).
func SetChunkHeader(md *proto.MessageMetadata, h chunk.Header) {
	md.Uuid = protobuf.String(h.UUID)
	md.ChunkId = protobuf.Int32(h.ChunkID)
	md.NumChunksFromMsg = protobuf.Int32(h.NumChunks)
	md.TotalChunkMsgSize = protobuf.Int32(h.TotalSize)
}
