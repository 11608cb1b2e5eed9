package compress

import (
	"bytes"
	"errors"
	"io"
	"math"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// zlibMaxRatio bounds how many bytes one byte of a zlib stream can decode
// to: DEFLATE's best case is a 258-byte match coded in 2 bits.
const zlibMaxRatio = 1032

// zlibCodec implements ZLIB: a zlib stream (RFC 1950) at the default
// compression level, as java.util.zip.Deflater writes it.
type zlibCodec struct {
	writers sync.Pool // *zlibWriter
	readers sync.Pool // *zlibReader
}

// zlibWriter is a pooled zlib writer and the buffer it appends to.
type zlibWriter struct {
	zw  *zlib.Writer
	out appendWriter
}

// zlibReader is a pooled zlib reader and the reader of its input.
type zlibReader struct {
	zr    io.ReadCloser // also a zlib.Resetter
	src   bytes.Reader
	probe [1]byte // for reading past the expected end
}

// appendWriter is an io.Writer that appends to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func newZlibCodec() *zlibCodec { return &zlibCodec{} }

func (*zlibCodec) Type() Type { return ZLIB }

func (c *zlibCodec) Compress(dst, src []byte) []byte {
	w, _ := c.writers.Get().(*zlibWriter)
	if w == nil {
		w = new(zlibWriter)
		w.zw = zlib.NewWriter(&w.out)
	} else {
		w.zw.Reset(&w.out)
	}
	w.out.b = growCap(dst, c.MaxCompressedSize(len(src)))
	// Writes to an appendWriter cannot fail, so neither can these.
	_, _ = w.zw.Write(src)
	_ = w.zw.Close()
	out := w.out.b
	w.out.b = nil
	c.writers.Put(w)
	return out
}

func (c *zlibCodec) Decompress(dst, src []byte, uncompressedSize int) ([]byte, error) {
	if err := checkSize(uncompressedSize); err != nil {
		return dst, err
	}
	if err := checkRatio(ZLIB, src, uncompressedSize, zlibMaxRatio); err != nil {
		return dst, err
	}
	out, err := grow(dst, uncompressedSize)
	if err != nil {
		return dst, err
	}

	r, _ := c.readers.Get().(*zlibReader)
	if r == nil {
		r = new(zlibReader)
	}
	r.src.Reset(src)
	if r.zr == nil {
		r.zr, err = zlib.NewReader(&r.src)
	} else {
		err = r.zr.(zlib.Resetter).Reset(&r.src, nil)
	}
	if err != nil {
		// A reader that failed to start can still be reset later.
		if r.zr != nil {
			c.readers.Put(r)
		}
		return dst, corrupt(ZLIB, err)
	}
	n, more, err := r.read(out[len(dst):])
	r.src.Reset(nil)
	c.readers.Put(r)
	switch {
	case err != nil:
		return dst, err
	case more:
		return dst, sizeOverrun(ZLIB, uncompressedSize)
	case n != uncompressedSize:
		return dst, sizeMismatch(ZLIB, n, uncompressedSize)
	}
	return out, nil
}

// read decodes the stream into buf. It returns the number of bytes
// decoded, whether the stream holds more than fits in buf, and an error if
// the stream is malformed or its checksum does not match. It never reads more
// than len(buf)+1 bytes of output.
func (r *zlibReader) read(buf []byte) (n int, more bool, err error) {
	lr := &io.LimitedReader{R: r.zr, N: int64(len(buf)) + 1}
	for n < len(buf) {
		m, err := lr.Read(buf[n:])
		n += m
		if errors.Is(err, io.EOF) {
			// The zlib reader returns io.EOF only after checking the
			// Adler-32 checksum.
			return n, false, nil
		}
		if err != nil {
			return n, false, corrupt(ZLIB, err)
		}
	}
	// buf is full: the stream must end here.
	for {
		m, err := lr.Read(r.probe[:])
		if m > 0 {
			return n, true, nil
		}
		if errors.Is(err, io.EOF) {
			return n, false, nil
		}
		if err != nil {
			return n, false, corrupt(ZLIB, err)
		}
	}
}

func (*zlibCodec) MaxCompressedSize(n int) int {
	// deflateBound in zlib's deflate.c, which also covers stored blocks.
	if n < 0 || n > math.MaxInt/2 {
		return -1
	}
	return n + (n+7)>>3 + (n+63)>>6 + 11
}
