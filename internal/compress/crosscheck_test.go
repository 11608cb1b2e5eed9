package compress

// These tests check the wire formats against the libraries' reference
// encoders and decoders (and, for ZLIB, the standard library), in both
// directions, plus golden payloads as other Pulsar clients write them.

import (
	"bytes"
	stdzlib "compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// crossInputs are the inputs the cross-checks encode, generated once and
// shared: callers must not modify them.
var crossInputs = sync.OnceValue(func() [][]byte {
	return [][]byte{
		{}, []byte("a"), []byte("hello"), textBytes(100<<10, 11),
		randomBytes(200<<10, 12), make([]byte, 1<<20),
	}
})

// Building a Zstandard encoder at its best level, or a decoder, costs more
// than the inputs here take to encode (about a second under the race
// detector), so the library's reference coders are built once and shared.
var (
	libZstdMu  sync.Mutex // guards libZstdEnc, a streaming encoder
	libZstdEnc = sync.OnceValues(func() (*zstd.Encoder, error) {
		// A streaming encoder does not know the size in advance and
		// writes no frame content size.
		return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderCRC(false))
	})
	// libZstdDec is safe for concurrent DecodeAll.
	libZstdDec = sync.OnceValues(func() (*zstd.Decoder, error) { return zstd.NewReader(nil) })
)

// libDecode decodes a payload of typ with the underlying library alone.
func libDecode(t *testing.T, typ Type, src []byte, size int) []byte {
	t.Helper()
	switch typ {
	case LZ4:
		out := make([]byte, size)
		n, err := lz4.UncompressBlock(src, out)
		if err != nil {
			t.Fatalf("lz4.UncompressBlock: %v", err)
		}
		return out[:n]
	case ZLIB:
		r, err := stdzlib.NewReader(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("compress/zlib: %v", err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("compress/zlib: %v", err)
		}
		return out
	case ZSTD:
		d, err := libZstdDec()
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.DecodeAll(src, nil)
		if err != nil {
			t.Fatalf("zstd.DecodeAll: %v", err)
		}
		return out
	case SNAPPY:
		out, err := snappy.DecodeStrict(nil, src)
		if err != nil {
			t.Fatalf("snappy.DecodeStrict: %v", err)
		}
		return out
	}
	t.Fatalf("no library decoder for %v", typ)
	return nil
}

// libEncode encodes src as typ with the underlying library alone, using
// settings other than the codec's where the format allows it.
func libEncode(t *testing.T, typ Type, src []byte) []byte {
	t.Helper()
	switch typ {
	case LZ4:
		var c lz4.CompressorHC
		out := make([]byte, lz4.CompressBlockBound(len(src)))
		n, err := c.CompressBlock(src, out)
		if err != nil || n == 0 {
			t.Fatalf("lz4 HC: %d, %v", n, err)
		}
		return out[:n]
	case ZLIB:
		var buf bytes.Buffer
		w, err := stdzlib.NewWriterLevel(&buf, stdzlib.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(src)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	case ZSTD:
		w, err := libZstdEnc()
		if err != nil {
			t.Fatal(err)
		}
		libZstdMu.Lock()
		defer libZstdMu.Unlock()
		var buf bytes.Buffer
		w.Reset(&buf)
		_, _ = w.Write(src)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	case SNAPPY:
		return snappy.Encode(nil, src)
	}
	t.Fatalf("no library encoder for %v", typ)
	return nil
}

func TestOutputDecodesWithLibrary(t *testing.T) {
	for _, typ := range []Type{LZ4, ZLIB, ZSTD, SNAPPY} {
		c := lookup(t, typ)
		for _, in := range crossInputs() {
			t.Run(fmt.Sprintf("%v/%d", typ, len(in)), func(t *testing.T) {
				got := libDecode(t, typ, c.Compress(nil, in), len(in))
				if !bytes.Equal(got, in) {
					t.Fatalf("library decoded %d bytes, want the %d-byte input", len(got), len(in))
				}
			})
		}
	}
}

func TestDecodesLibraryOutput(t *testing.T) {
	for _, typ := range []Type{LZ4, ZLIB, ZSTD, SNAPPY} {
		c := lookup(t, typ)
		for _, in := range crossInputs() {
			t.Run(fmt.Sprintf("%v/%d", typ, len(in)), func(t *testing.T) {
				enc := libEncode(t, typ, in)
				got, err := c.Decompress(nil, enc, len(in))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, in) {
					t.Fatalf("decoded %d bytes, want the %d-byte input", len(got), len(in))
				}
				// Wrong sizes are caught without a frame content size too.
				for _, size := range []int{len(in) + 1, len(in) - 1} {
					if size < 0 {
						continue
					}
					if _, err := c.Decompress(nil, enc, size); !isCorrupt(err) {
						t.Errorf("size %d: error %v, want ErrCorrupt", size, err)
					}
				}
			})
		}
	}
}

// TestGolden decodes payloads for "hello" as the reference encoders of
// each format (and so the Java and C++ clients) write them.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		typ Type
		hex string
	}{
		{NONE, "68656c6c6f"},
		// One token (5 literals), then the literals.
		{LZ4, "5068656c6c6f"},
		// java.util.zip.Deflater, default level.
		{ZLIB, "789ccb48cdc9c90700062c0215"},
		// Single-segment frame, 1-byte content size, one raw last block.
		{ZSTD, "28b52ffd2005290000" + "68656c6c6f"},
		// Varint length 5, then a literal tag for 5 bytes.
		{SNAPPY, "051068656c6c6f"},
	} {
		src, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decompress(lookup(t, tc.typ), nil, src, 5, 5)
		if err != nil || string(got) != "hello" {
			t.Errorf("%v: got %q, %v", tc.typ, got, err)
		}
	}
}

func TestLZ4LiteralsBlock(t *testing.T) {
	// The fallback for blocks the library declines to compress.
	for _, n := range []int{0, 1, 14, 15, 16, 269, 270, 271, 525, 64 << 10, 1 << 20} {
		in := randomBytes(n, uint64(n))
		enc := appendLZ4Literals([]byte("xy"), in)
		if string(enc[:2]) != "xy" {
			t.Fatalf("%d: prefix lost", n)
		}
		if max := lz4.CompressBlockBound(n); len(enc)-2 > max {
			t.Errorf("%d: %d bytes, bound %d", n, len(enc)-2, max)
		}
		if got := libDecode(t, LZ4, enc[2:], n); !bytes.Equal(got, in) {
			t.Fatalf("%d: literals block does not decode to its input", n)
		}
		got, err := lookup(t, LZ4).Decompress(nil, enc[2:], n)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("%d: codec failed on literals block: %v", n, err)
		}
	}
}
