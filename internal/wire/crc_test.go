package wire

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// updateCRC agrees with hash/crc32 at every length around the folding
// thresholds and beyond, from every alignment and initial value.
func TestUpdateCRCMatchesHashCRC32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 3*foldMax+300)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	lengths := []int{0, 1, 15, 63, 64, 127, 128, 129, 255, 256, 1000, foldFrom - 1, foldFrom, foldFrom + 1,
		foldFrom + 63, foldFrom + 64, 4096, 65536 + 17, foldMax - 1, foldMax, foldMax + 1, foldMax + 64, 2*foldMax + 100, 3 * foldMax}
	for range 200 {
		lengths = append(lengths, r.IntN(len(buf)-64))
	}
	for _, n := range lengths {
		for _, off := range []int{0, 1, 7, 33} {
			p := buf[off : off+n]
			for _, init := range []uint32{0, 0xffffffff, r.Uint32()} {
				if got, want := updateCRC(init, p), crc32.Update(init, castagnoli, p); got != want {
					t.Fatalf("len %d offset %d init %#x: got %#x, want %#x (fold %v)", n, off, init, got, want, foldCRC)
				}
			}
		}
	}
	t.Logf("folding with VPCLMULQDQ: %v", foldCRC)
}

// A checksum computed in pieces is the checksum of the whole.
func TestUpdateCRCInPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 1<<20+5)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	want := crc32.Checksum(buf, castagnoli)
	for range 50 {
		var crc uint32
		for p := buf; len(p) > 0; {
			n := min(len(p), 1+r.IntN(300<<10))
			crc = updateCRC(crc, p[:n])
			p = p[n:]
		}
		if crc != want {
			t.Fatalf("in pieces: %#x, whole: %#x", crc, want)
		}
	}
}

// The folding constants of crc_amd64.s are x^n mod P, bit-reflected and
// shifted left by one, for P the Castagnoli polynomial.
func TestFoldConstants(t *testing.T) {
	xn := func(n int) uint64 {
		const poly = 0x1EDC6F41 // Castagnoli, x^32 implied
		r := uint32(1)
		for range n {
			hi := r & 0x80000000
			r <<= 1
			if hi != 0 {
				r ^= poly
			}
		}
		var rev uint32
		for i := range 32 {
			if r&(1<<i) != 0 {
				rev |= 1 << (31 - i)
			}
		}
		return uint64(rev) << 1
	}
	for _, c := range []struct {
		n    int
		want uint64
	}{{2080, 0xdcb17aa4}, {2016, 0xb9e02b86}, {544, 0x740eef02}, {480, 0x9e4addf8}, {160, 0xf20c0dfe}, {96, 0x14cd00bd6}} {
		if got := xn(c.n); got != c.want {
			t.Errorf("x^%d mod P: %#x, crc_amd64.s has %#x", c.n, got, c.want)
		}
	}
}

func BenchmarkCRC1MiB(b *testing.B) {
	p := make([]byte, 1<<20)
	for i := range p {
		p[i] = byte(i * 7)
	}
	b.Run("hash-crc32", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			crc32.Update(0, castagnoli, p)
		}
	})
	b.Run("updateCRC", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			updateCRC(0, p)
		}
	})
}
