package compress

import (
	"testing"
)

// benchInput is 1 MiB of compressible text, the shape of a typical batch.
var benchInput = textBytes(1<<20, 41)

func BenchmarkCompress(b *testing.B) {
	for _, typ := range allTypes {
		b.Run(typ.String(), func(b *testing.B) {
			c := lookup(b, typ)
			dst := make([]byte, 0, c.MaxCompressedSize(len(benchInput)))
			b.SetBytes(int64(len(benchInput)))
			b.ReportAllocs()
			for b.Loop() {
				dst = c.Compress(dst[:0], benchInput)
			}
			b.ReportMetric(float64(len(benchInput))/float64(len(dst)), "ratio")
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	for _, typ := range allTypes {
		b.Run(typ.String(), func(b *testing.B) {
			c := lookup(b, typ)
			src := c.Compress(nil, benchInput)
			dst := make([]byte, 0, len(benchInput))
			b.SetBytes(int64(len(benchInput)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				dst, err = Decompress(c, dst[:0], src, len(benchInput), len(benchInput))
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecompressNewBuffer decodes into a fresh buffer each time, as a
// consumer handing payloads off to the application does.
func BenchmarkDecompressNewBuffer(b *testing.B) {
	for _, typ := range allTypes {
		b.Run(typ.String(), func(b *testing.B) {
			c := lookup(b, typ)
			src := c.Compress(nil, benchInput)
			b.SetBytes(int64(len(benchInput)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decompress(c, nil, src, len(benchInput), len(benchInput)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
