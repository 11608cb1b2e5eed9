package wire

import (
	"hash/crc32"
	"math"

	"github.com/pulsargo/sdk/internal/proto"
)

const (
	// DefaultMaxMessageSize is Pulsar's default maxMessageSize (5 MiB): the
	// largest metadata plus payload a broker accepts unless it announces
	// another max_message_size in CommandConnected.
	DefaultMaxMessageSize = 5 << 20
	// FramePadding is the room a frame may take beyond the max message size
	// for the command and headers (Pulsar's MESSAGE_SIZE_FRAME_PADDING, 10 KiB).
	FramePadding = 10 << 10
	// DefaultMaxFrameSize is the default limit on a frame's TOTAL_SIZE:
	// DefaultMaxMessageSize + FramePadding. Functions taking a maxFrameSize
	// use it when given a value <= 0.
	DefaultMaxFrameSize = DefaultMaxMessageSize + FramePadding

	// MagicChecksum starts the checksum section of a payload frame.
	MagicChecksum uint16 = 0x0e01
	// MagicBrokerEntryMetadata starts the broker-entry-metadata section that
	// a broker may put after the command of a MESSAGE frame.
	MagicBrokerEntryMetadata uint16 = 0x0e02
)

// Frame is one decoded frame.
//
// For a simple frame only Cmd and Size are set. For a payload frame
// HasPayload is true and Meta, RawMeta and Payload are set (Payload may be
// empty but is never nil). RawMeta and Payload alias the bytes the frame was
// decoded from: the caller's buffer for DecodeFrame, a buffer owned by this
// frame alone (never reused) for Reader.ReadFrame. Cmd, Meta and BrokerMeta
// do not alias anything.
type Frame struct {
	// Cmd is the command; its type is known and its field is set.
	Cmd *proto.BaseCommand
	// HasPayload reports a payload frame (bytes after the command).
	HasPayload bool
	// BrokerMeta is the broker entry metadata, nil when the frame had none.
	BrokerMeta *proto.BrokerEntryMetadata
	// HasChecksum reports whether the frame had the 0x0e01 checksum section
	// (which was then verified). Only old peers omit it.
	HasChecksum bool
	// Checksum is the frame's CRC32C as received, when HasChecksum: of the
	// metadata size (4 bytes), the metadata and the payload.
	Checksum uint32
	// Meta is the decoded message metadata.
	Meta *proto.MessageMetadata
	// RawMeta is the metadata exactly as received (without its size prefix),
	// so that a broker can store and resend it without re-encoding.
	RawMeta []byte
	// Payload is the message payload (possibly compressed, possibly a batch).
	Payload []byte
	// Size is the frame's length on the wire, 4+TOTAL_SIZE.
	Size int

	buf  []byte      // the frame's buffer, when it came from a pool
	pool *BufferPool // where Release returns buf
}

// Release gives the frame's buffer back to the Reader's BufferPool, if it
// came from one. Afterwards RawMeta and Payload must not be used (Cmd, Meta
// and BrokerMeta stay valid). Calling it twice, or on a frame without a
// pool, does nothing.
func (f *Frame) Release() {
	if f.pool != nil {
		f.pool.put(f.buf)
		f.buf, f.pool, f.RawMeta, f.Payload = nil, nil, nil, nil
	}
}

// Move returns a copy of f that owns f's pooled buffer, and leaves f
// without it: f's Release then does nothing, and the copy's Release gives
// the buffer back. A handler that finishes with a frame later, on another
// goroutine, moves it out of the read loop that releases every frame it
// handled. On a frame without a pool it returns f unchanged.
func (f *Frame) Move() Frame {
	g := *f
	f.buf, f.pool = nil, nil
	return g
}

// Keep gives the frame's pooled buffer up for good, if the buffer is not
// much larger than the frame (by an eighth at most, as a power-of-two
// chunk's frame is to its size class), and reports whether the frame's
// bytes are now the caller's: then the buffer never goes back to the pool,
// RawMeta and Payload stay valid for as long as the caller keeps them, and
// Release does nothing. A broker that stores a large entry keeps the buffer
// it arrived in rather than copying it, and the pool allocates another for
// the next frame; a buffer with much room to spare is left to the pool (the
// caller copies what it keeps). A frame without a pool is the caller's
// already: Keep reports true.
func (f *Frame) Keep() bool {
	if f.pool == nil {
		return true
	}
	if cap(f.buf)-f.Size > f.Size/8 {
		return false
	}
	f.buf, f.pool = nil, nil
	return true
}

// castagnoli is the CRC32C table; hash/crc32 uses the CPU's CRC32
// instruction for it where available. Frames' checksums go through
// updateCRC, which folds inputs of 4 KiB and more with VPCLMULQDQ where
// the CPU has AVX-512 (crc_amd64.s), about 2.5 times as fast as hash/crc32 on
// a 1 MiB chunk.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// limit returns the effective maximum frame size.
func limit(maxFrameSize int) uint64 {
	if maxFrameSize <= 0 {
		return DefaultMaxFrameSize
	}
	return uint64(maxFrameSize)
}

// checkTotalSize validates a TOTAL_SIZE field against the limit.
func checkTotalSize(total uint32, maxFrameSize int) error {
	if uint64(total) > limit(maxFrameSize) {
		return newError(ErrFrameTooLarge,
			"total size "+itoa(uint64(total))+" > max "+itoa(limit(maxFrameSize)), nil)
	}
	if uint64(total) > math.MaxInt-4 {
		return newError(ErrFrameTooLarge, "total size "+itoa(uint64(total))+" does not fit in memory", nil)
	}
	if total < 4 {
		return newError(ErrBadSize, "total size "+itoa(uint64(total))+" < 4", nil)
	}
	return nil
}
