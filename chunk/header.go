package chunk

import "fmt"

// Header is the chunk fields that every chunk of a chunked message carries
// in its message metadata. On the Pulsar wire they are the MessageMetadata
// fields uuid, chunk_id, num_chunks_from_msg and total_chunk_msg_size;
// this package reads and writes only this struct, so converting to and
// from the wire is the caller's business (one assignment per field).
//
// The zero Header is not a valid chunk header: an Assembler refuses it with
// ErrInvalidChunk.
type Header struct {
	// UUID identifies the message: "<producer>-<sequence>" (see UUID), the
	// same in every chunk. An empty UUID is invalid.
	UUID string
	// ChunkID is the chunk's index, 0 to NumChunks-1.
	ChunkID int32
	// NumChunks is the number of chunks of the message
	// (num_chunks_from_msg), at least 1.
	NumChunks int32
	// TotalSize is the size in bytes of the whole (compressed) payload
	// (total_chunk_msg_size), the sum of every chunk's payload size; it is
	// never negative.
	TotalSize int32
}

// IsLast reports whether h is the header of the last chunk of its message
// (ChunkID == NumChunks-1).
func (h Header) IsLast() bool { return h.ChunkID == h.NumChunks-1 }

// validate checks the fields of h on their own, returning one of
// ErrInvalidChunk and ErrChunkIDOutOfRange with details, or nil.
func (h Header) validate() (detail string, reason error) {
	num, total, id := h.NumChunks, h.TotalSize, h.ChunkID
	switch {
	case h.UUID == "":
		return "no uuid", ErrInvalidChunk
	case num < 1:
		return fmt.Sprintf("num_chunks_from_msg %d", num), ErrInvalidChunk
	case total < 0:
		return fmt.Sprintf("total_chunk_msg_size %d", total), ErrInvalidChunk
	case num > max(1, total):
		// Every producer makes ceil(total/size) chunks, at least 1.
		return fmt.Sprintf("%d chunks cannot make %d bytes", num, total), ErrInvalidChunk
	case id < 0 || id >= num:
		return fmt.Sprintf("chunk_id %d of %d chunks", id, num), ErrChunkIDOutOfRange
	}
	return "", nil
}
