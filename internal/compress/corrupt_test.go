package compress

import (
	"errors"
	"fmt"
	"testing"
)

// isCorrupt reports whether err reports corrupt input.
func isCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }

func TestTruncated(t *testing.T) {
	in := textBytes(64<<10, 21)
	for _, typ := range []Type{LZ4, ZLIB, ZSTD, SNAPPY} {
		t.Run(typ.String(), func(t *testing.T) {
			c := lookup(t, typ)
			enc := c.Compress(nil, in)
			for n := range len(enc) {
				if n > 64 && n < len(enc)-64 && n%97 != 0 {
					continue
				}
				dst := []byte("keep")
				out, err := c.Decompress(dst, enc[:n], len(in))
				if !isCorrupt(err) {
					t.Fatalf("truncated to %d of %d bytes: error %v, want ErrCorrupt", n, len(enc), err)
				}
				if string(out) != "keep" {
					t.Fatalf("truncated to %d: dst not returned unchanged", n)
				}
			}
		})
	}
}

func TestBitFlips(t *testing.T) {
	in := textBytes(4<<10, 22)
	for _, typ := range []Type{LZ4, ZLIB, ZSTD, SNAPPY} {
		t.Run(typ.String(), func(t *testing.T) {
			c := lookup(t, typ)
			enc := c.Compress(nil, in)
			bad := make([]byte, len(enc))
			for i := range enc {
				for _, mask := range []byte{0x01, 0x80, 0xFF} {
					copy(bad, enc)
					bad[i] ^= mask
					out, err := c.Decompress(nil, bad, len(in))
					// Formats without checksums can decode damaged
					// literals; they must still honour the size.
					if err == nil && len(out) != len(in) {
						t.Fatalf("byte %d ^ %#x: %d bytes without error", i, mask, len(out))
					}
					if err != nil && !isCorrupt(err) {
						t.Fatalf("byte %d ^ %#x: error %v, want ErrCorrupt", i, mask, err)
					}
				}
			}
		})
	}
}

func TestGarbage(t *testing.T) {
	for _, typ := range []Type{LZ4, ZLIB, ZSTD, SNAPPY} {
		c := lookup(t, typ)
		for i, src := range [][]byte{
			{0xFF},
			{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
			randomBytes(1000, 23),
			[]byte("this is not compressed data at all"),
		} {
			for _, size := range []int{0, 1, 100, 4000} {
				_, err := c.Decompress(nil, src, size)
				if !isCorrupt(err) {
					t.Errorf("%v: garbage %d, size %d: error %v, want ErrCorrupt", typ, i, size, err)
				}
			}
		}
	}
}

func TestLyingSize(t *testing.T) {
	for _, in := range [][]byte{[]byte("hello, pulsar"), textBytes(200, 26), textBytes(100<<10, 24), randomBytes(300<<10, 25)} {
		for _, typ := range allTypes {
			c := lookup(t, typ)
			enc := c.Compress(nil, in)
			for _, delta := range []int{1, 2, 1000, -1, -2, -1000} {
				size := len(in) + delta
				if size < 0 {
					continue
				}
				t.Run(fmt.Sprintf("%v/%d%+d", typ, len(in), delta), func(t *testing.T) {
					out, err := Decompress(c, []byte("keep"), enc, size, 1<<30)
					if string(out) != "keep" {
						t.Error("dst not returned unchanged")
					}
					// LZ4 blocks and Zstandard frames without a
					// content size (klauspost omits it below 256
					// bytes) cannot tell output that does not fit
					// from bad data, so a size that is too small may
					// be reported as plain corruption.
					want := ErrSizeMismatch
					if (typ == LZ4 || typ == ZSTD) && delta < 0 {
						want = ErrCorrupt
					}
					if !errors.Is(err, want) {
						t.Fatalf("error %v, want %v", err, want)
					}
				})
			}
		}
	}
}

// TestZstdFrameClaim checks that a frame claiming more than the metadata is
// rejected from its header, and one claiming less is rejected after.
func TestZstdFrameClaim(t *testing.T) {
	c := lookup(t, ZSTD)
	// Single-segment frame with an 8-byte content size, one raw last block
	// of 5 bytes.
	frame := func(fcs uint64) []byte {
		b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0}
		for i := range 8 {
			b = append(b, byte(fcs>>(8*i)))
		}
		return append(b, 0x29, 0, 0, 'h', 'e', 'l', 'l', 'o')
	}
	if out, err := c.Decompress(nil, frame(5), 5); err != nil || string(out) != "hello" {
		t.Fatalf("valid frame: %q, %v", out, err)
	}
	for _, fcs := range []uint64{6, 1 << 40, 1<<64 - 1} {
		n := bytesPerRun(5, func() {
			if _, err := c.Decompress(nil, frame(fcs), 5); !errors.Is(err, ErrSizeMismatch) {
				t.Fatalf("content size %d: error %v, want ErrSizeMismatch", fcs, err)
			}
		})
		if n > smallAlloc {
			t.Errorf("content size %d: %d bytes allocated", fcs, n)
		}
	}
	if _, err := c.Decompress(nil, frame(4), 5); !errors.Is(err, ErrCorrupt) {
		t.Errorf("content size 4: error %v, want ErrCorrupt", err)
	}
}

// TestSnappyHeaderClaim checks that a block whose header claims a huge
// length is rejected without allocating it.
func TestSnappyHeaderClaim(t *testing.T) {
	c := lookup(t, SNAPPY)
	src := []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x10, 'h', 'e', 'l', 'l', 'o'} // 4 GiB - 1
	n := bytesPerRun(5, func() {
		if _, err := c.Decompress(nil, src, 5); !errors.Is(err, ErrSizeMismatch) {
			t.Fatalf("error %v, want ErrSizeMismatch", err)
		}
	})
	if n > smallAlloc {
		t.Errorf("%d bytes allocated", n)
	}
}

// TestAllocationBoundedByExpectedSize decodes payloads that expand far beyond
// the size in the metadata and checks that the decoders stop early instead of
// allocating what the data would decode to.
func TestAllocationBoundedByExpectedSize(t *testing.T) {
	const (
		// What the payload decodes to: nearly four times expected+slack, so a
		// decoder that ran to the end (or io.ReadAll's doubling) shows.
		actual   = 4 << 20
		expected = 64 << 10 // what the metadata claims
		slack    = 1 << 20  // decoder state and error values
	)
	in := make([]byte, actual)
	type testCase struct {
		name string
		typ  Type
		enc  []byte
	}
	var cases []testCase
	for _, typ := range allTypes {
		cases = append(cases, testCase{typ.String(), typ, lookup(t, typ).Compress(nil, in)})
	}
	// Without a frame content size, the decoder itself must stop.
	cases = append(cases, testCase{"ZSTD stream", ZSTD, libEncode(t, ZSTD, in)})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := lookup(t, tc.typ)
			// Warm up pools and lazily allocated decoder state.
			_, _ = c.Decompress(nil, tc.enc, actual)
			n := allocatedBytes(func() {
				if _, err := c.Decompress(nil, tc.enc, expected); !isCorrupt(err) {
					t.Errorf("error %v, want ErrCorrupt", err)
				}
			})
			t.Logf("allocated %d bytes", n)
			if n > expected+slack {
				t.Errorf("allocated %d bytes to reject a %d-byte claim", n, expected)
			}
		})
	}
}

// TestLZ4EmptyOutput covers blocks for an empty payload. pierrec/lz4
// v4.1.33's amd64 decoder writes through a nil destination, so a nil dst with
// size 0 must not reach it.
func TestLZ4EmptyOutput(t *testing.T) {
	c := lookup(t, LZ4)
	for _, src := range [][]byte{nil, {}, {0x00}} {
		if out, err := c.Decompress(nil, src, 0); err != nil || len(out) != 0 {
			t.Errorf("%x: got %q, %v", src, out, err)
		}
	}
	for _, src := range [][]byte{{0x10}, {0x00, 0x00}, {0x10, 'x'}, randomBytes(1000, 27)} {
		if _, err := c.Decompress(nil, src, 0); !isCorrupt(err) {
			t.Errorf("%x: error %v, want ErrCorrupt", src, err)
		}
	}
}
