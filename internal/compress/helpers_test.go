package compress

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// allTypes lists every supported compression type.
var allTypes = []Type{NONE, LZ4, ZLIB, ZSTD, SNAPPY}

// lookup returns the codec for typ or fails the test.
func lookup(tb testing.TB, typ Type) Codec {
	tb.Helper()
	c, err := Lookup(typ)
	if err != nil {
		tb.Fatalf("Lookup(%v): %v", typ, err)
	}
	return c
}

// randomBytes returns n deterministic incompressible bytes.
func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	_, _ = r.Read(b)
	return b
}

// textBytes returns n deterministic bytes of compressible, log-like text.
func textBytes(n int, seed uint64) []byte {
	words := strings.Fields(`pulsar topic partition message producer consumer
		broker bookie ledger entry batch schema tenant namespace subscription
		cursor ack nack retry dead letter compaction key value 0 1 2 42 1024`)
	r := rand.New(rand.NewPCG(seed, 1))
	var sb strings.Builder
	sb.Grow(n + 64)
	for sb.Len() < n {
		sb.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			sb.WriteByte('\n')
		} else {
			sb.WriteByte(' ')
		}
	}
	return []byte(sb.String()[:n])
}

// namedInput is one input of testInputs.
type namedInput struct {
	name string
	data []byte
}

// testInputs returns named inputs covering the interesting shapes. They are
// generated once and shared: callers must not modify them.
//
// The large inputs are 1 MiB + 1 byte: past every block and window of the
// formats (Zstandard's 128 KiB blocks, which also ends the small-input
// margin of its MaxCompressedSize, LZ4's 64 KiB match offset, Snappy's
// 64 KiB blocks, DEFLATE's 32 KiB window and 64 KiB stored blocks), with a
// final block of one byte. Zeros stay at 4 MiB, near Pulsar's 5 MiB
// message limit, where the expansion ratio is the largest the test sees
// (zeros cost little to generate and compress).
var testInputs = sync.OnceValue(func() []namedInput {
	const large = 1<<20 + 1
	return []namedInput{
		{"empty", []byte{}},
		{"nil", nil},
		{"one", []byte{'x'}},
		{"small", []byte("hello, pulsar")},
		{"14 bytes", []byte("0123456789abcd")},
		{"15 bytes", []byte("0123456789abcde")},
		{"random 1 KiB", randomBytes(1<<10, 1)},
		{"random 64 KiB", randomBytes(64<<10, 2)},
		{"random 1 MiB+1", randomBytes(large, 3)},
		{"text 300 KiB", textBytes(300<<10, 4)},
		{"text 1 MiB+1", textBytes(large, 5)},
		{"zeros 4 MiB", make([]byte, 4<<20)},
	}
})

// allocatedBytes returns how many bytes f allocates. Tests using it must not
// run in parallel.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// smallAlloc is what an error return may allocate: the error values and
// their messages.
const smallAlloc = 4 << 10

// bytesPerRun returns how many bytes f allocates per call, averaged over
// runs calls after a warm-up call.
func bytesPerRun(runs int, f func()) uint64 {
	f()
	return allocatedBytes(func() {
		for range runs {
			f()
		}
	}) / uint64(runs)
}
