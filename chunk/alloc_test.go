package chunk

import (
	"runtime"
	"testing"
)

// allocPerMessage reassembles chunks runs times and returns the bytes
// allocated per message.
func allocPerMessage(t testing.TB, chunks []Incoming, runs int) uint64 {
	t.Helper()
	a := NewAssembler(Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		var msg *Message
		for _, c := range chunks {
			var err error
			if msg, _, err = a.Add(c); err != nil {
				t.Fatal(err)
			}
		}
		if msg == nil {
			t.Fatal("no message")
		}
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// TestReassemblyAllocation: reassembling allocates at most 1.05x the message
// size (the official Go client: 2.0x). The 64 MiB case is in the benchmarks.
func TestReassemblyAllocation(t *testing.T) {
	const size = 8 << 20
	payload := pattern(size, 1)
	for _, chunkSize := range []int{1 << 20, 3 << 20, 64 << 10} {
		chunks := incoming(t, split(t, "p", 1, payload, chunkSize), 1)
		perMsg := allocPerMessage(t, chunks, 4)
		ratio := float64(perMsg) / size
		t.Logf("chunk size %d: %d bytes allocated per %d-byte message (%.4fx)", chunkSize, perMsg, size, ratio)
		if ratio > 1.05 {
			t.Errorf("chunk size %d: %.4fx allocated, want <= 1.05x", chunkSize, ratio)
		}
	}
}
