package prefault

import (
	"bytes"
	"runtime"
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

// Make's buffers have make's length and capacity, hold what is written to
// them across garbage collections, and do not share memory.
func TestMakeIsAnOrdinaryBuffer(t *testing.T) {
	for _, tc := range []struct{ n, c int }{{0, 0}, {10, 5}, {100, 4096}, {64 << 10, 64 << 10}, {1 << 20, 2 << 20}, {8<<20 + 3, 8<<20 + 3}} {
		bufs := make([][]byte, 4)
		for i := range bufs {
			b := Make(tc.n, tc.c)
			if len(b) != tc.n || cap(b) != max(tc.n, tc.c) {
				t.Fatalf("Make(%d, %d): len %d cap %d", tc.n, tc.c, len(b), cap(b))
			}
			b = b[:cap(b)]
			for j := range b {
				b[j] = byte(i + j)
			}
			bufs[i] = b
		}
		runtime.GC()
		_ = make([]byte, 32<<20) // garbage that could land where a lost buffer was
		runtime.GC()
		for i, b := range bufs {
			for j := range b {
				if b[j] != byte(i+j) {
					t.Fatalf("Make(%d, %d): buffer %d byte %d is %d, want %d", tc.n, tc.c, i, j, b[j], byte(i+j))
				}
			}
		}
	}
}

func BenchmarkMake8MiB(b *testing.B) {
	src := make([]byte, 8<<20)
	for _, bc := range []struct {
		name string
		new  func(n int) []byte
	}{
		{"make", func(n int) []byte { buf := make([]byte, n); Bytes(buf); return buf }},
		{"Make", func(n int) []byte { return Make(n, n) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				copy(bc.new(len(src)), src)
			}
		})
	}
}

// On this Go, Make's large buffers come from strings.Builder (uncleared):
// a Go release that changes the Builder fails here, not silently slower.
func TestMakeTakesBuildersBuffer(t *testing.T) {
	if _, ok := builderBuffer(unclearedFrom); !ok {
		t.Fatal("strings.Builder no longer gives one buffer of the capacity grown: Make clears again")
	}
	if _, ok := builderBuffer(unclearedFrom - 1); ok {
		t.Fatal("a small buffer came from a Builder")
	}
}
