package compress

import (
	"errors"
	"fmt"
	"math"

	"github.com/klauspost/compress/zstd"
)

const (
	// zstdMaxRatio bounds how many bytes one byte of a Zstandard frame can
	// decode to: every block takes at least 4 bytes (a 3-byte header and an
	// RLE byte) and decodes to at most 128 KiB.
	zstdMaxRatio = 128 << 10 / 4

	// zstdMaxWindow is the largest window a frame may declare. It is the
	// reference decoder's default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT),
	// which covers every compression level short of long-distance mode.
	zstdMaxWindow = 1 << 27

	// zstdMaxMemory is the decoder's hard output limit: the largest size the
	// uint32 uncompressed_size field of Pulsar's metadata can hold. Calls are
	// further bounded by their expected size.
	zstdMaxMemory = math.MaxUint32
)

// zstdCodec implements ZSTD: one Zstandard frame per payload, with the
// content size in the frame header (as zstd-jni's Zstd.compress and
// klauspost's EncodeAll write it).
type zstdCodec struct {
	// Both are safe for concurrent use of EncodeAll and DecodeAll, which
	// borrow from internal pools of encoder and decoder state.
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func newZstdCodec() (*zstdCodec, error) {
	enc, err := zstd.NewWriter(nil,
		// SpeedDefault is zstd level 3, the level of the Java client and
		// the default of the official Go client.
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		// Write a frame for empty input too, as zstd-jni does, rather
		// than nothing.
		zstd.WithZeroFrames(true),
	)
	if err != nil {
		return nil, fmt.Errorf("compress: creating zstd encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(zstdMaxMemory),
		zstd.WithDecoderMaxWindow(zstdMaxWindow),
		// Bound DecodeAll by the capacity of its destination, which
		// Decompress sets to the expected size.
		zstd.WithDecodeAllCapLimit(true),
	)
	if err != nil {
		return nil, fmt.Errorf("compress: creating zstd decoder: %w", err)
	}
	return &zstdCodec{enc: enc, dec: dec}, nil
}

func (*zstdCodec) Type() Type { return ZSTD }

func (c *zstdCodec) Compress(dst, src []byte) []byte {
	return c.enc.EncodeAll(src, dst)
}

func (c *zstdCodec) Decompress(dst, src []byte, uncompressedSize int) ([]byte, error) {
	if err := checkSize(uncompressedSize); err != nil {
		return dst, err
	}
	if len(src) == 0 {
		// Encoders that skip empty frames, such as klauspost's EncodeAll
		// by default (and so the official Go client), write nothing for
		// an empty payload.
		if uncompressedSize != 0 {
			return dst, sizeMismatch(ZSTD, 0, uncompressedSize)
		}
		return dst, nil
	}
	if err := checkRatio(ZSTD, src, uncompressedSize, zstdMaxRatio); err != nil {
		return dst, err
	}
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return dst, corrupt(ZSTD, err)
	}
	if h.HasFCS && h.FrameContentSize > uint64(uncompressedSize) {
		return dst, fmt.Errorf("%w: ZSTD frame header says %d bytes, metadata says %d",
			ErrSizeMismatch, h.FrameContentSize, uncompressedSize)
	}
	buf, err := grow(dst, uncompressedSize)
	if err != nil {
		return dst, err
	}
	// Capping the capacity makes DecodeAll fail rather than decode past
	// the expected size.
	out, err := c.dec.DecodeAll(src, buf[:len(dst):len(buf)])
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return dst, sizeOverrun(ZSTD, uncompressedSize)
	}
	if err != nil {
		return dst, corrupt(ZSTD, err)
	}
	if n := len(out) - len(dst); n != uncompressedSize {
		return dst, sizeMismatch(ZSTD, n, uncompressedSize)
	}
	return out, nil
}

func (*zstdCodec) MaxCompressedSize(n int) int {
	// ZSTD_COMPRESSBOUND from zstd.h.
	if n < 0 || n > math.MaxInt/2 {
		return -1
	}
	const lowLimit = 128 << 10
	margin := 0
	if n < lowLimit {
		margin = (lowLimit - n) >> 11
	}
	return n + n>>8 + margin
}
