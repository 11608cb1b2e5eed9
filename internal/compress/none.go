package compress

// noneCodec implements NONE: the payload is stored as is.
type noneCodec struct{}

func (noneCodec) Type() Type { return NONE }

func (noneCodec) Compress(dst, src []byte) []byte { return append(dst, src...) }

func (noneCodec) Decompress(dst, src []byte, uncompressedSize int) ([]byte, error) {
	if err := checkSize(uncompressedSize); err != nil {
		return dst, err
	}
	if len(src) != uncompressedSize {
		return dst, sizeMismatch(NONE, len(src), uncompressedSize)
	}
	out, err := grow(dst, uncompressedSize)
	if err != nil {
		return dst, err
	}
	copy(out[len(dst):], src)
	return out, nil
}

func (noneCodec) MaxCompressedSize(n int) int {
	if n < 0 {
		return -1
	}
	return n
}
