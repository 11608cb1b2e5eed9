package chunk

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxTotalSize is the largest payload that can be chunked: the
// total_chunk_msg_size field is an int32.
const MaxTotalSize = math.MaxInt32

// Chunk is one chunk of a message: its Header (the chunk fields a producer
// writes into the chunk's metadata) and its part of the payload.
type Chunk struct {
	// Header is the chunk's uuid, chunk id, chunk count and total size.
	Header
	// Payload is the chunk's part of the payload: a sub-slice of the payload
	// given to Split or NewPlan, not a copy.
	Payload []byte
}

// UUID returns the uuid of the chunks of message sequenceID of a producer:
// "<producer>-<sequenceID>", as every Pulsar client writes it.
func UUID(producer string, sequenceID uint64) string {
	var num [20]byte
	digits := strconv.AppendUint(num[:0], sequenceID, 10)
	var b strings.Builder // one allocation
	b.Grow(len(producer) + 1 + len(digits))
	b.WriteString(producer)
	b.WriteByte('-')
	b.Write(digits)
	return b.String()
}

// NumChunks returns how many chunks of at most chunkSize bytes a payload of
// payloadLen bytes is split into: ceil(payloadLen/chunkSize), and 1 for an
// empty payload (as the official clients compute it). It returns 0 when
// chunkSize <= 0 or payloadLen < 0.
func NumChunks(payloadLen, chunkSize int) int {
	if chunkSize <= 0 || payloadLen < 0 {
		return 0
	}
	n := payloadLen / chunkSize
	if payloadLen%chunkSize != 0 || n == 0 {
		n++
	}
	return n
}

// PayloadSize returns the payload size of each chunk under Pulsar's rule:
// the broker's max message size minus the size of the message's metadata.
// metadataSize should include the chunk fields (see MetadataOverhead). It
// returns ErrChunkSizeTooSmall when nothing is left for the payload.
//
// A producer's own chunk size limit (the official clients'
// ChunkMaxMessageSize) is applied by taking the minimum of it and this.
func PayloadSize(maxMessageSize, metadataSize int) (int, error) {
	if metadataSize < 0 {
		return 0, fmt.Errorf("%w: negative metadata size %d", ErrChunkSizeTooSmall, metadataSize)
	}
	if maxMessageSize <= metadataSize {
		return 0, fmt.Errorf("%w: max message size %d leaves no room for a payload after %d bytes of metadata",
			ErrChunkSizeTooSmall, maxMessageSize, metadataSize)
	}
	return maxMessageSize - metadataSize, nil
}

// MetadataOverhead returns an upper bound of the bytes that a chunk's Header
// adds to the encoded size of a Pulsar MessageMetadata for a chunk with this
// uuid, whatever its chunk id, chunk count and total size: the uuid field
// (field 26) plus the num_chunks_from_msg, total_chunk_msg_size and chunk_id
// int32 fields (27 to 29) at their widest.
func MetadataOverhead(uuid string) int {
	const tag = 2      // field numbers 26..29 take two bytes of tag
	const maxInt32 = 5 // a non-negative int32 varint takes at most 5 bytes
	return tag + protowire.SizeBytes(len(uuid)) + 3*(tag+maxInt32)
}

// Plan is how a payload is split into chunks, computed without copying or
// allocating anything of the payload's size. Chunk(i) returns chunk i.
type Plan struct {
	uuid      string
	payload   []byte
	chunkSize int
	n         int
}

// NewPlan plans the chunks of message sequenceID of producer, whose
// (compressed) payload is payload, with at most chunkSize bytes of payload
// per chunk. It fails with ErrChunkSizeTooSmall when chunkSize <= 0 and with
// ErrPayloadTooLarge when len(payload) > MaxTotalSize.
//
// An empty payload, or one of at most chunkSize bytes, makes a plan of one
// chunk. The official clients send such a message as an ordinary message,
// without chunk fields (the Go client computes max(1, ceil(0/size)) = 1
// chunk for an empty payload and then does not chunk); a producer should do
// the same when Len() == 1. An Assembler still accepts a one-chunk message.
func NewPlan(producer string, sequenceID uint64, payload []byte, chunkSize int) (Plan, error) {
	n, err := planChunks(len(payload), chunkSize)
	if err != nil {
		return Plan{}, err
	}
	return Plan{uuid: UUID(producer, sequenceID), payload: payload, chunkSize: chunkSize, n: n}, nil
}

// planChunks validates a payload length and chunk size and returns the
// number of chunks.
func planChunks(payloadLen, chunkSize int) (int, error) {
	if chunkSize <= 0 {
		return 0, fmt.Errorf("%w: chunk size %d", ErrChunkSizeTooSmall, chunkSize)
	}
	if payloadLen > MaxTotalSize {
		return 0, fmt.Errorf("%w: %d bytes, at most %d can be chunked", ErrPayloadTooLarge, payloadLen, MaxTotalSize)
	}
	return NumChunks(payloadLen, chunkSize), nil
}

// UUID returns the uuid of the planned chunks.
func (p Plan) UUID() string { return p.uuid }

// Len returns the number of chunks (at least 1 for a plan from NewPlan).
func (p Plan) Len() int { return p.n }

// TotalSize returns the payload size, the total_chunk_msg_size of every chunk.
func (p Plan) TotalSize() int { return len(p.payload) }

// Chunk returns chunk i, 0 <= i < Len(); it panics for any other i, as
// indexing a slice does. Its Payload is a sub-slice of the planned payload.
func (p Plan) Chunk(i int) Chunk {
	if i < 0 || i >= p.n {
		panic(fmt.Sprintf("chunk: Plan.Chunk(%d) out of range [0,%d)", i, p.n))
	}
	lo := i * p.chunkSize
	hi := lo + min(p.chunkSize, len(p.payload)-lo)
	return Chunk{
		Header: Header{
			UUID:      p.uuid,
			ChunkID:   int32(i),
			NumChunks: int32(p.n),
			TotalSize: int32(len(p.payload)),
		},
		Payload: p.payload[lo:hi:hi],
	}
}

// Split returns the chunks of message sequenceID of producer, as NewPlan
// plans them. The only allocations are the uuid and the slice of chunk
// headers; every Payload is a sub-slice of payload (capacity limited to the
// chunk, so appending to one cannot overwrite the next).
func Split(producer string, sequenceID uint64, payload []byte, chunkSize int) ([]Chunk, error) {
	p, err := NewPlan(producer, sequenceID, payload, chunkSize)
	if err != nil {
		return nil, err
	}
	chunks := make([]Chunk, p.n)
	for i := range chunks {
		chunks[i] = p.Chunk(i)
	}
	return chunks, nil
}
