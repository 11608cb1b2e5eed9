package compress

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
)

// fuzzLimit is the size limit FuzzDecompress passes to Decompress: small,
// so that an input claiming a large size costs the fuzzer no large
// allocation (at 4 MiB each one cleared up to 4 MiB). What the
// limit guards is the same at any size: a size over it is ErrSizeLimit
// before anything is allocated, and the bounds of each codec's output are
// checked against the expected size, which the fuzzer sets freely below
// it.
const fuzzLimit = 64 << 10

// fuzzCodecEnv names the environment variable that pins FuzzDecompress to
// one codec, so each can be fuzzed on its own:
//
//	COMPRESS_FUZZ_CODEC=ZSTD go test -run='^$' -fuzz=FuzzDecompress -fuzztime=30s .
const fuzzCodecEnv = "COMPRESS_FUZZ_CODEC"

// FuzzDecompress feeds arbitrary payloads and sizes to every codec. It
// checks that decoding never panics, returns exactly the expected size on
// success, leaves dst alone on failure, reports only this package's errors
// and allocates in proportion to the expected size only. It also checks that
// the payload, taken as plain data, survives a round trip.
//
// On a shared 2-core machine it runs at about 11,000 executions a second
// between the fuzzer's minimizations (20 s with -fuzzminimizetime=0). With
// go's default -fuzzminimizetime (up to a minute per input that finds new
// coverage) the minimizations take most of a run: 5 minutes made 142,973
// executions. .ci/fuzz passes 10s.
func FuzzDecompress(f *testing.F) {
	only := Type(-1)
	if name := os.Getenv(fuzzCodecEnv); name != "" {
		for _, typ := range allTypes {
			if strings.EqualFold(name, typ.String()) {
				only = typ
			}
		}
		if only < 0 {
			f.Fatalf("%s=%q is not a codec name", fuzzCodecEnv, name)
		}
	}
	codecs := make(map[Type]Codec)
	for _, typ := range allTypes {
		codecs[typ] = lookup(f, typ)
	}

	// Seeds: valid payloads of each codec with the right and wrong sizes,
	// golden payloads and garbage.
	seeds := [][]byte{nil, []byte("hello"), textBytes(3000, 31), randomBytes(300, 32), make([]byte, 5000)}
	for _, typ := range allTypes {
		c := codecs[typ]
		for _, in := range seeds {
			enc := c.Compress(nil, in)
			for _, size := range []int{len(in), len(in) + 1, len(in) - 1, 0, 1 << 20} {
				if size >= 0 {
					f.Add(uint8(typ), enc, uint32(size))
				}
			}
		}
		f.Add(uint8(typ), []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, uint32(100))
	}
	for typ, golden := range map[Type]string{
		LZ4:    "5068656c6c6f",
		ZLIB:   "789ccb48cdc9c90700062c0215",
		ZSTD:   "28b52ffd200529000068656c6c6f",
		SNAPPY: "051068656c6c6f",
	} {
		b, _ := hex.DecodeString(golden)
		f.Add(uint8(typ), b, uint32(5))
	}

	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	allocated := func() uint64 {
		metrics.Read(allocs)
		return allocs[0].Value.Uint64()
	}

	f.Fuzz(func(t *testing.T, codec uint8, src []byte, size uint32) {
		typ := Type(codec % uint8(len(allTypes)))
		if only >= 0 {
			typ = only
		}
		c := codecs[typ]
		prefix := []byte("prefix")
		dst := append(make([]byte, 0, 8), prefix...)

		before := allocated()
		out, err := Decompress(c, dst, src, int(size), fuzzLimit)
		used := allocated() - before

		expected := min(int(size), fuzzLimit+1)
		if bound := uint64(2*expected + 4<<20); used > bound {
			t.Errorf("%v: allocated %d bytes for size %d", typ, used, size)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSizeLimit) {
				t.Fatalf("%v: unexpected error %v", typ, err)
			}
			if int(size) > fuzzLimit && !errors.Is(err, ErrSizeLimit) {
				t.Fatalf("%v: size %d over the limit: error %v", typ, size, err)
			}
			if !bytes.Equal(out, prefix) || &out[0] != &dst[0] {
				t.Fatalf("%v: dst changed on error", typ)
			}
		} else {
			if len(out) != len(prefix)+int(size) {
				t.Fatalf("%v: decoded %d bytes, want %d", typ, len(out)-len(prefix), size)
			}
			if !bytes.Equal(out[:len(prefix)], prefix) {
				t.Fatalf("%v: prefix overwritten", typ)
			}
		}

		// src as plain data must survive a round trip.
		enc := c.Compress(nil, src)
		if len(enc) > c.MaxCompressedSize(len(src)) {
			t.Fatalf("%v: compressed %d bytes to %d, over MaxCompressedSize", typ, len(src), len(enc))
		}
		dec, err := c.Decompress(nil, enc, len(src))
		if err != nil || !bytes.Equal(dec, src) {
			t.Fatalf("%v: round trip of %d bytes failed: %v", typ, len(src), err)
		}
	})
}
