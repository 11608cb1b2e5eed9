package prefault

import (
	"bytes"
	"testing"
)

// Bytes never changes what a buffer holds, whatever its size and
// alignment, and leaves it writable.
func TestBytesKeepsContents(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 64 << 10, 1<<20 + 123} {
		b := make([]byte, n+7)
		for i := range b {
			b[i] = byte(i * 7)
		}
		want := bytes.Clone(b)
		for _, off := range []int{0, 1, 7} {
			Bytes(b[off : off+n])
			if !bytes.Equal(b, want) {
				t.Fatalf("n %d off %d: contents changed", n, off)
			}
		}
		for i := range b {
			b[i] = 1
		}
	}
}
