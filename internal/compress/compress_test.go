package compress

import (
	"errors"
	"testing"
	"time"
)

func TestTypeValuesMatchProtocol(t *testing.T) {
	// CompressionType in PulsarApi.proto.
	want := map[Type]int32{NONE: 0, LZ4: 1, ZLIB: 2, ZSTD: 3, SNAPPY: 4}
	for typ, v := range want {
		if int32(typ) != v {
			t.Errorf("%v = %d, want %d", typ, int32(typ), v)
		}
	}
}

func TestTypeString(t *testing.T) {
	for typ, want := range map[Type]string{
		NONE: "NONE", LZ4: "LZ4", ZLIB: "ZLIB", ZSTD: "ZSTD", SNAPPY: "SNAPPY",
		5: "Type(5)", -1: "Type(-1)",
	} {
		if got := typ.String(); got != want {
			t.Errorf("Type(%d).String() = %q, want %q", int32(typ), got, want)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, typ := range allTypes {
		c, err := Lookup(typ)
		if err != nil {
			t.Fatalf("Lookup(%v): %v", typ, err)
		}
		if c.Type() != typ {
			t.Errorf("Lookup(%v).Type() = %v", typ, c.Type())
		}
	}
}

func TestLookupUnsupported(t *testing.T) {
	for _, typ := range []Type{5, 6, -1, 1 << 30} {
		c, err := Lookup(typ)
		if c != nil {
			t.Errorf("Lookup(%v) returned codec %v", typ, c)
		}
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Lookup(%v) error %v, want ErrUnsupported", typ, err)
		}
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.Type != typ {
			t.Errorf("Lookup(%v) error %#v, want *UnsupportedError for the type", typ, err)
		}
	}
	if got, want := (&UnsupportedError{Type: 9}).Error(), "compress: unsupported compression type 9"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestSizeMismatchIsCorrupt(t *testing.T) {
	if !errors.Is(ErrSizeMismatch, ErrCorrupt) {
		t.Fatal("ErrSizeMismatch does not wrap ErrCorrupt")
	}
	if errors.Is(ErrCorrupt, ErrSizeMismatch) {
		t.Fatal("ErrCorrupt wraps ErrSizeMismatch")
	}
}

func TestDecompressChecksSizeBeforeAllocating(t *testing.T) {
	const limit = 5 << 20
	for _, typ := range allTypes {
		t.Run(typ.String(), func(t *testing.T) {
			c := lookup(t, typ)
			src := c.Compress(nil, []byte("payload"))
			dst := []byte("prefix")
			for _, tc := range []struct {
				size int
				want error
			}{
				{-1, ErrInvalidSize},
				{-1 << 40, ErrInvalidSize},
				{limit + 1, ErrSizeLimit},
				{1 << 40, ErrSizeLimit},
				{int(^uint(0) >> 1), ErrSizeLimit},
			} {
				start := time.Now()
				out, err := Decompress(c, dst, src, tc.size, limit)
				if !errors.Is(err, tc.want) {
					t.Errorf("size %d: error %v, want %v", tc.size, err, tc.want)
				}
				if string(out) != "prefix" {
					t.Errorf("size %d: returned %q, want dst unchanged", tc.size, out)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("size %d: took %v", tc.size, d)
				}
				n := bytesPerRun(10, func() {
					_, _ = Decompress(c, dst, src, tc.size, limit)
				})
				if n > smallAlloc {
					t.Errorf("size %d: %d bytes allocated", tc.size, n)
				}
			}
			out, err := Decompress(c, dst, src, len("payload"), limit)
			if err != nil || string(out) != "prefixpayload" {
				t.Errorf("valid size: got %q, %v", out, err)
			}
		})
	}
}

func TestCodecRejectsNegativeSize(t *testing.T) {
	for _, typ := range allTypes {
		c := lookup(t, typ)
		src := c.Compress(nil, nil)
		for _, size := range []int{-1, -1 << 40} {
			if _, err := c.Decompress(nil, src, size); !errors.Is(err, ErrInvalidSize) {
				t.Errorf("%v: size %d: error %v, want ErrInvalidSize", typ, size, err)
			}
		}
	}
}

func TestCodecRejectsHugeClaimQuickly(t *testing.T) {
	// Without a limit, the codecs still refuse sizes the input cannot
	// decode to, before allocating them.
	for _, typ := range allTypes {
		c := lookup(t, typ)
		src := c.Compress(nil, textBytes(4<<10, 1))
		n := bytesPerRun(10, func() {
			_, err := c.Decompress(nil, src, 1<<40)
			if !errors.Is(err, ErrSizeMismatch) {
				t.Fatalf("%v: error %v, want ErrSizeMismatch", typ, err)
			}
		})
		if n > smallAlloc {
			t.Errorf("%v: %d bytes allocated", typ, n)
		}
	}
}

func TestMaxCompressedSize(t *testing.T) {
	for _, typ := range allTypes {
		c := lookup(t, typ)
		for _, n := range []int{-1, -1 << 40} {
			if got := c.MaxCompressedSize(n); got != -1 {
				t.Errorf("%v.MaxCompressedSize(%d) = %d, want -1", typ, n, got)
			}
		}
		for _, n := range []int{0, 1, 100, 1 << 20, 1 << 31} {
			if got := c.MaxCompressedSize(n); got < n {
				t.Errorf("%v.MaxCompressedSize(%d) = %d, want >= n", typ, n, got)
			}
		}
	}
}
