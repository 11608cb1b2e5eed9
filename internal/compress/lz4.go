package compress

import (
	"fmt"
	"math"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// lz4MaxRatio bounds how many bytes one byte of an LZ4 block can decode to:
// a match costs at least one byte per 255 bytes of length, a literal one
// byte per byte.
const lz4MaxRatio = 255

// lz4Codec implements LZ4 as Pulsar uses it: a single raw LZ4 block with no
// frame and no size prefix (lz4-java's LZ4Compressor/LZ4FastDecompressor).
type lz4Codec struct {
	// compressors pools *lz4.Compressor values (about 136 KiB of hash
	// table each), which are not safe for concurrent use.
	compressors sync.Pool
}

func newLZ4Codec() *lz4Codec {
	return &lz4Codec{compressors: sync.Pool{New: func() any { return new(lz4.Compressor) }}}
}

func (*lz4Codec) Type() Type { return LZ4 }

func (c *lz4Codec) Compress(dst, src []byte) []byte {
	bound := lz4.CompressBlockBound(len(src))
	out := growCap(dst, bound)
	buf := out[len(dst) : len(dst)+bound]

	comp := c.compressors.Get().(*lz4.Compressor)
	n, err := comp.CompressBlock(src, buf)
	c.compressors.Put(comp)
	if err != nil || n == 0 {
		// With a buffer of CompressBlockBound bytes the library always
		// succeeds, but older versions returned 0 for incompressible
		// input. A block of literals only is valid LZ4 in any case.
		return appendLZ4Literals(dst, src)
	}
	return out[:len(dst)+n]
}

func (*lz4Codec) Decompress(dst, src []byte, uncompressedSize int) ([]byte, error) {
	if err := checkSize(uncompressedSize); err != nil {
		return dst, err
	}
	if err := checkRatio(LZ4, src, uncompressedSize, lz4MaxRatio); err != nil {
		return dst, err
	}
	if uncompressedSize == 0 {
		return dst, checkEmptyLZ4(src)
	}
	out, err := grow(dst, uncompressedSize)
	if err != nil {
		return dst, err
	}
	// The decoder writes no further than len(out); output that would not
	// fit makes it fail, which is reported as corruption because the block
	// format cannot tell the two apart.
	n, err := lz4.UncompressBlock(src, out[len(dst):])
	if err != nil {
		return dst, corrupt(LZ4, err)
	}
	if n != uncompressedSize {
		return dst, sizeMismatch(LZ4, n, uncompressedSize)
	}
	return out, nil
}

// checkEmptyLZ4 returns an error wrapping ErrCorrupt unless src is an LZ4
// block of no output. The only such block is a single token with no literals and no match, which is what
// encoders write for empty input; lz4-java accepts nothing else either. An
// empty src is accepted too, as the library is.
//
// Handling this case here also keeps the library's amd64 decoder (v4.1.33)
// from being called with a nil destination, which it writes through.
func checkEmptyLZ4(src []byte) error {
	if len(src) == 0 || (len(src) == 1 && src[0] == 0) {
		return nil
	}
	return fmt.Errorf("%w: LZ4: %d-byte block is not an empty block", ErrCorrupt, len(src))
}

func (*lz4Codec) MaxCompressedSize(n int) int {
	if n < 0 || n > (math.MaxInt-16)/256*255 {
		return -1
	}
	return lz4.CompressBlockBound(n)
}

// appendLZ4Literals appends to dst an LZ4 block that holds src as literals
// only: one token whose literal length is len(src), followed by src. Any LZ4
// block decoder accepts it, as the format requires the last sequence to be
// literals.
func appendLZ4Literals(dst, src []byte) []byte {
	n := len(src)
	if n < 15 {
		dst = append(dst, byte(n<<4))
	} else {
		dst = append(dst, 0xF0)
		for n -= 15; n >= 255; n -= 255 {
			dst = append(dst, 0xFF)
		}
		dst = append(dst, byte(n))
	}
	return append(dst, src...)
}
