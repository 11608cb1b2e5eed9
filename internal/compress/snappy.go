package compress

import (
	"github.com/klauspost/compress/snappy"
)

// snappyCodec implements SNAPPY: one raw Snappy block, whose varint header
// holds the uncompressed length (snappy-java's Snappy.compress).
type snappyCodec struct{}

func (snappyCodec) Type() Type { return SNAPPY }

func (snappyCodec) Compress(dst, src []byte) []byte {
	// snappy.Encode writes from the start of its dst, so give it the
	// spare capacity only.
	out := growCap(dst, snappy.MaxEncodedLen(len(src)))
	buf := out[len(dst):cap(out)]
	enc := snappy.Encode(buf, src)
	if len(enc) > 0 && &enc[0] != &buf[0] {
		// Unreachable while the buffer holds MaxEncodedLen bytes.
		return append(dst, enc...)
	}
	return out[:len(dst)+len(enc)]
}

func (snappyCodec) Decompress(dst, src []byte, uncompressedSize int) ([]byte, error) {
	if err := checkSize(uncompressedSize); err != nil {
		return dst, err
	}
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return dst, corrupt(SNAPPY, err)
	}
	if n != uncompressedSize {
		return dst, sizeMismatch(SNAPPY, n, uncompressedSize)
	}
	out, err := grow(dst, uncompressedSize)
	if err != nil {
		return dst, err
	}
	// With len(buf) == n the decoder never allocates and decodes into buf.
	buf := out[len(dst):len(out):len(out)]
	dec, err := snappy.Decode(buf, src)
	if err != nil {
		return dst, corrupt(SNAPPY, err)
	}
	if len(dec) != n || (n > 0 && &dec[0] != &buf[0]) {
		// Unreachable with the checks above; kept so that a change in the
		// library cannot silently return data outside out.
		return dst, sizeMismatch(SNAPPY, len(dec), uncompressedSize)
	}
	return out, nil
}

func (snappyCodec) MaxCompressedSize(n int) int {
	if n < 0 {
		return -1
	}
	return snappy.MaxEncodedLen(n)
}
