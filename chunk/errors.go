package chunk

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/messageid"
)

// Errors of splitting. They are returned wrapped with details; test them with
// errors.Is.
var (
	// ErrChunkSizeTooSmall: the chunk payload size is not positive, for
	// example because the broker's max message size does not exceed the
	// metadata that every chunk carries.
	ErrChunkSizeTooSmall = errors.New("chunk: chunk size too small")
	// ErrPayloadTooLarge: the payload is longer than MaxTotalSize, the
	// largest total_chunk_msg_size the protocol can express.
	ErrPayloadTooLarge = errors.New("chunk: payload too large to chunk")
)

// Reasons an Assembler refuses a chunk or discards an incomplete message.
// Every one reaches the caller inside an *Error (as the error returned by
// Assembler.Add or as Discarded.Reason); test them with errors.Is.
var (
	// ErrInvalidChunk: the chunk's Header is not that of a chunk (empty
	// UUID, NumChunks < 1, negative TotalSize, or more chunks than the total
	// size allows).
	ErrInvalidChunk = errors.New("chunk: invalid chunk metadata")
	// ErrChunkIDOutOfRange: the Header's ChunkID is negative or not below
	// its NumChunks.
	ErrChunkIDOutOfRange = errors.New("chunk: chunk id out of range")
	// ErrUnknownMessage: a chunk other than chunk 0 arrived for a uuid with no
	// incomplete message (its start was never seen, or was discarded).
	ErrUnknownMessage = errors.New("chunk: chunk of unknown message")
	// ErrOutOfOrder: a chunk skipped ahead of the next expected chunk id.
	ErrOutOfOrder = errors.New("chunk: chunk out of order")
	// ErrSizeMismatch: the chunks' payloads overrun the Header's TotalSize, or
	// the last chunk leaves the message short of it (underrun).
	ErrSizeMismatch = errors.New("chunk: chunk sizes do not add up to the total size")
	// ErrMismatch: a chunk reuses the uuid of an incomplete message with a
	// different NumChunks or TotalSize.
	ErrMismatch = errors.New("chunk: uuid reused with different totals")
	// ErrDuplicate: a chunk id that the message already has arrived again
	// with a different message id (a second stored copy, as after a producer
	// resend). The copy is ignored and reported so it can be acknowledged; a
	// redelivery with the same message id is ignored silently.
	ErrDuplicate = errors.New("chunk: duplicate chunk")
	// ErrSuperseded: chunk 0 arrived again, with a different message id, for
	// an incomplete message; the old chunks were discarded and the message
	// restarts from the new chunk 0 (as the official clients do).
	ErrSuperseded = errors.New("chunk: incomplete message superseded by a new chunk 0")
	// ErrTooLarge: the Header's TotalSize exceeds Options.MaxMessageSize.
	ErrTooLarge = errors.New("chunk: message larger than the maximum message size")
	// ErrOverBudget: the Header's TotalSize exceeds Options.MaxPendingBytes, so
	// the message could not be buffered even with nothing else pending.
	ErrOverBudget = errors.New("chunk: message larger than the pending byte budget")
	// ErrEvicted: the oldest incomplete message was dropped to make room for
	// a new one, under Options.MaxPendingMessages or Options.MaxPendingBytes.
	ErrEvicted = errors.New("chunk: incomplete message evicted")
	// ErrExpired: an incomplete message was older than Options.ExpireAfter.
	ErrExpired = errors.New("chunk: incomplete message expired")
	// ErrReset: the incomplete message was dropped by Assembler.Reset.
	ErrReset = errors.New("chunk: incomplete message dropped by reset")
)

// Error describes chunks that an Assembler gave up on: why, for which
// message, and the ids of every chunk concerned, so that the caller can
// acknowledge them (the message will never be delivered) or negatively
// acknowledge them (to have it redelivered).
type Error struct {
	// UUID is the chunked message's uuid (empty if the chunk had none).
	UUID string
	// ChunkIDs are the ids of the dropped chunks in arrival order: those of
	// the discarded incomplete message, then, when the incoming chunk was
	// refused, that chunk's id.
	ChunkIDs []messageid.ID
	// Err is one of the sentinel errors of this package.
	Err error
	// Detail says what was wrong, for people.
	Detail string
}

// Error returns "<Err>: uuid "<UUID>": <Detail> (<n> chunk ids)".
func (e *Error) Error() string {
	return fmt.Sprintf("%v: uuid %q: %s (%d chunk ids)", e.Err, e.UUID, e.Detail, len(e.ChunkIDs))
}

// Unwrap returns Err, so that errors.Is(err, ErrOutOfOrder) and the like work.
func (e *Error) Unwrap() error { return e.Err }

// Discarded reports chunks that will never be part of a returned Message:
// an incomplete message that was evicted, expired, reset, superseded or found
// corrupt, or a single refused chunk. The caller acknowledges ChunkIDs (to
// skip the message, as the official clients' AutoAckIncompleteChunk does) or
// negatively acknowledges them (to have the message redelivered).
type Discarded struct {
	// UUID is the message's uuid.
	UUID string
	// ChunkIDs are the ids of the dropped chunks, in arrival order.
	ChunkIDs []messageid.ID
	// Reason is the *Error describing the discard (same UUID and ChunkIDs).
	Reason error
}

func newDiscarded(uuid string, ids []messageid.ID, reason error, detail string) Discarded {
	return Discarded{UUID: uuid, ChunkIDs: ids, Reason: &Error{UUID: uuid, ChunkIDs: ids, Err: reason, Detail: detail}}
}
