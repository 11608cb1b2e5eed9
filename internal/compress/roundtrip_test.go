package compress

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, typ := range allTypes {
		c := lookup(t, typ)
		for _, in := range testInputs() {
			t.Run(fmt.Sprintf("%v/%s", typ, in.name), func(t *testing.T) {
				enc := c.Compress(nil, in.data)
				if max := c.MaxCompressedSize(len(in.data)); len(enc) > max {
					t.Errorf("compressed to %d bytes, MaxCompressedSize says %d", len(enc), max)
				}
				dec, err := Decompress(c, nil, enc, len(in.data), len(in.data))
				if err != nil {
					t.Fatalf("Decompress: %v", err)
				}
				if !bytes.Equal(dec, in.data) {
					t.Fatalf("round trip changed the data (%d bytes, want %d)", len(dec), len(in.data))
				}
				if cap(dec) > len(in.data)+64 {
					t.Errorf("output capacity %d for %d bytes", cap(dec), len(in.data))
				}
			})
		}
	}
}

func TestAppendsToDst(t *testing.T) {
	data := textBytes(10<<10, 7)
	for _, typ := range allTypes {
		t.Run(typ.String(), func(t *testing.T) {
			c := lookup(t, typ)
			alone := c.Compress(nil, data)

			// Without spare capacity.
			enc := c.Compress([]byte("head"), data)
			if string(enc[:4]) != "head" || !bytes.Equal(enc[4:], alone) {
				t.Fatal("Compress did not append to dst")
			}
			dec, err := c.Decompress([]byte("head"), enc[4:], len(data))
			if err != nil {
				t.Fatal(err)
			}
			if string(dec[:4]) != "head" || !bytes.Equal(dec[4:], data) {
				t.Fatal("Decompress did not append to dst")
			}

			// With spare capacity, which must be used without allocating.
			encBuf := make([]byte, 4, 4+c.MaxCompressedSize(len(data)))
			copy(encBuf, "head")
			decBuf := make([]byte, 4, 4+len(data))
			copy(decBuf, "head")
			allocs := testing.AllocsPerRun(5, func() {
				enc = c.Compress(encBuf[:4], data)
				dec, err = c.Decompress(decBuf[:4], enc[4:], len(data))
			})
			if err != nil {
				t.Fatal(err)
			}
			if &enc[0] != &encBuf[0] || &dec[0] != &decBuf[0] {
				t.Error("spare capacity of dst was not used")
			}
			if string(dec[:4]) != "head" || !bytes.Equal(dec[4:], data) {
				t.Fatal("Decompress into spare capacity gave wrong data")
			}
			if allocs > 2 && !raceEnabled {
				t.Errorf("%v allocations with preallocated buffers", allocs)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	inputs := [][]byte{nil, []byte("small"), textBytes(100<<10, 8), randomBytes(70<<10, 9)}
	for _, typ := range allTypes {
		t.Run(typ.String(), func(t *testing.T) {
			t.Parallel()
			c := lookup(t, typ)
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					// Eight rounds take every goroutine through each
					// input twice, with all eight codec calls overlapping.
					for i := range 8 {
						in := inputs[(g+i)%len(inputs)]
						enc := c.Compress(nil, in)
						dec, err := c.Decompress(nil, enc, len(in))
						if err != nil || !bytes.Equal(dec, in) {
							t.Errorf("goroutine %d: round trip failed: %v", g, err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}
