// Package compress implements the payload compression codecs of the Apache
// Pulsar wire protocol behind a single [Codec] interface.
//
// Each codec is identified by its [Type], whose values are the numbers of
// Pulsar's CompressionType protobuf enum, so a Type can be converted to and
// from the message metadata directly. [Lookup] returns the codec for a type.
//
// The encoded formats are the ones the official Java and Go clients produce
// and accept:
//
//   - [LZ4]: a raw LZ4 block, without frame or size prefix.
//   - [ZLIB]: a zlib stream (RFC 1950).
//   - [ZSTD]: a Zstandard frame.
//   - [SNAPPY]: a raw Snappy block, without stream framing.
//
// None of the formats carries a trustworthy uncompressed size, so decoding
// always takes the size recorded in the message metadata. Decompression is
// bounded by that size: a codec never allocates much more than it for the
// output, whatever the compressed input claims, and reports an error wrapping
// [ErrSizeMismatch] when the data decodes to a different length. Because the
// metadata itself comes from the network, callers should decode through the
// package-level [Decompress], which first checks the size against a limit
// (such as the broker's maximum message size) and rejects it before anything
// is allocated.
//
// Codecs are safe for concurrent use by multiple goroutines. [Lookup]
// returns a new codec value on each call; some codecs (ZSTD, ZLIB) keep
// reusable encoder and decoder state, so look a codec up once and share it.
package compress

import (
	"fmt"
	"math"
)

// Type identifies a compression codec. Its values are those of the
// CompressionType enum in Pulsar's PulsarApi.proto.
type Type int32

// The compression types defined by the Pulsar protocol.
const (
	// NONE stores the payload as is.
	NONE Type = 0
	// LZ4 is the raw LZ4 block format.
	LZ4 Type = 1
	// ZLIB is the zlib stream format (RFC 1950).
	ZLIB Type = 2
	// ZSTD is the Zstandard frame format (RFC 8878).
	ZSTD Type = 3
	// SNAPPY is the raw Snappy block format.
	SNAPPY Type = 4
)

// String returns the name Pulsar uses for t, such as "LZ4", or "Type(n)" for
// a value that is not a known compression type.
func (t Type) String() string {
	switch t {
	case NONE:
		return "NONE"
	case LZ4:
		return "LZ4"
	case ZLIB:
		return "ZLIB"
	case ZSTD:
		return "ZSTD"
	case SNAPPY:
		return "SNAPPY"
	}
	return fmt.Sprintf("Type(%d)", int32(t))
}

// A Codec compresses and decompresses message payloads in one format.
// Implementations are safe for concurrent use by multiple goroutines.
type Codec interface {
	// Type returns the compression type the codec implements.
	Type() Type

	// Compress appends the compressed form of src to dst and returns the
	// extended slice. src and dst must not overlap. Compressing does not
	// fail; the result is always accepted by Decompress with
	// uncompressedSize len(src). Inputs too large for the format, for
	// which MaxCompressedSize returns -1, are not supported.
	Compress(dst, src []byte) []byte

	// Decompress decodes src, which must decode to exactly uncompressedSize
	// bytes, appends the result to dst and returns the extended slice. src
	// and dst must not overlap.
	//
	// Errors wrap ErrInvalidSize if uncompressedSize is negative,
	// ErrCorrupt if src is malformed, and ErrSizeMismatch (itself an
	// ErrCorrupt) if src is well formed but decodes to another length.
	// Decoders stop at uncompressedSize, and LZ4 blocks and Zstandard frames
	// without a content size cannot tell data that goes on from damaged
	// data, so for them a size that is too small may yield a plain
	// ErrCorrupt. On error Decompress returns dst unchanged in length; the
	// bytes between len(dst) and cap(dst) may have been overwritten.
	//
	// For the output, Decompress allocates uncompressedSize bytes, and only
	// if dst lacks the capacity; sizes stated inside src never cause an
	// allocation, and codecs reject them, or sizes src is too short to
	// decode to, before allocating. Besides that, decoders use state of
	// bounded size. One exception: when hostile ZSTD data runs past
	// uncompressedSize within a block, the library grows its buffer once,
	// by about a quarter, before it stops.
	//
	// Decompress does not limit uncompressedSize; use the package-level
	// Decompress to reject sizes from untrusted metadata before allocating.
	Decompress(dst, src []byte, uncompressedSize int) ([]byte, error)

	// MaxCompressedSize returns an upper bound on the length Compress
	// appends for an input of n bytes, or -1 if n is negative or too large
	// for the format.
	MaxCompressedSize(n int) int
}

// Lookup returns a new codec for t. It returns an error wrapping
// ErrUnsupported, of type *UnsupportedError, if t is not a known compression
// type.
func Lookup(t Type) (Codec, error) {
	switch t {
	case NONE:
		return noneCodec{}, nil
	case LZ4:
		return newLZ4Codec(), nil
	case ZLIB:
		return newZlibCodec(), nil
	case ZSTD:
		return newZstdCodec()
	case SNAPPY:
		return snappyCodec{}, nil
	}
	return nil, &UnsupportedError{Type: t}
}

// Decompress checks uncompressedSize, normally taken from message metadata,
// and then decompresses src with c as c.Decompress(dst, src,
// uncompressedSize) does.
//
// Before allocating anything, it returns an error wrapping ErrInvalidSize if
// uncompressedSize is negative and one wrapping ErrSizeLimit if it exceeds
// limit, the largest payload the caller is willing to hold (for example the
// broker's maxMessageSize). On error it returns dst. c must not be nil.
func Decompress(c Codec, dst, src []byte, uncompressedSize, limit int) ([]byte, error) {
	if err := checkSize(uncompressedSize); err != nil {
		return dst, err
	}
	if uncompressedSize > limit {
		return dst, fmt.Errorf("%w: %s payload of %d bytes, limit %d",
			ErrSizeLimit, c.Type(), uncompressedSize, limit)
	}
	return c.Decompress(dst, src, uncompressedSize)
}

// checkSize reports an error wrapping ErrInvalidSize if n cannot be an
// uncompressed size.
func checkSize(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: %d", ErrInvalidSize, n)
	}
	return nil
}

// checkRatio reports an error wrapping ErrSizeMismatch if src, in a format
// whose output is at most maxRatio times as long as its input, cannot decode
// to n bytes. It lets codecs reject impossible sizes before allocating.
func checkRatio(t Type, src []byte, n, maxRatio int) error {
	if len(src) <= math.MaxInt/maxRatio && n > len(src)*maxRatio {
		return fmt.Errorf("%w: %s: %d input bytes cannot decode to %d bytes",
			ErrSizeMismatch, t, len(src), n)
	}
	return nil
}

// grow returns dst extended by n bytes, which must not be negative. If dst
// lacks the capacity, it allocates exactly len(dst)+n bytes.
func grow(dst []byte, n int) ([]byte, error) {
	if n > math.MaxInt-len(dst) {
		return dst, fmt.Errorf("%w: %d bytes after %d do not fit in memory",
			ErrInvalidSize, n, len(dst))
	}
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n], nil
	}
	out := make([]byte, len(dst)+n)
	copy(out, dst)
	return out, nil
}

// growCap returns dst with room for at least n more bytes, keeping its
// length.
func growCap(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}

// sizeMismatch returns an error wrapping ErrSizeMismatch for a payload of t
// that decoded to got bytes instead of want.
func sizeMismatch(t Type, got, want int) error {
	return fmt.Errorf("%w: %s payload decoded to %d bytes, metadata says %d",
		ErrSizeMismatch, t, got, want)
}

// sizeOverrun returns an error wrapping ErrSizeMismatch for a payload of t
// that decodes to more than want bytes.
func sizeOverrun(t Type, want int) error {
	return fmt.Errorf("%w: %s payload decodes to more than the %d bytes the metadata says",
		ErrSizeMismatch, t, want)
}

// corrupt returns an error wrapping ErrCorrupt and the library error err.
func corrupt(t Type, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, t, err)
}
