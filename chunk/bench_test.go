package chunk

import (
	"fmt"
	"runtime"
	"testing"
)

const benchSize = 64 << 20

// BenchmarkAssemble64MiB reassembles a 64 MiB message. alloc-x is the bytes
// allocated per message divided by the message size (the official Go
// client: 2.0).
func BenchmarkAssemble64MiB(b *testing.B) {
	payload := pattern(benchSize, 1)
	for _, chunkSize := range []int{1 << 20, 5 << 20} {
		b.Run(fmt.Sprintf("chunk=%dMiB", chunkSize>>20), func(b *testing.B) {
			chunks := incoming(b, split(b, "p", 1, payload, chunkSize), 1)
			a := NewAssembler(Options{})
			b.ReportAllocs()
			b.SetBytes(benchSize)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				var msg *Message
				for _, c := range chunks {
					msg, _, _ = a.Add(c)
				}
				if msg == nil || len(msg.Payload) != benchSize {
					b.Fatal("no message")
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/benchSize, "alloc-x")
		})
	}
}

// BenchmarkSplit64MiB splits a 64 MiB payload; B/op is the chunk headers and
// the uuid, independent of the payload size.
func BenchmarkSplit64MiB(b *testing.B) {
	payload := make([]byte, benchSize)
	for _, chunkSize := range []int{1 << 20, 5 << 20} {
		b.Run(fmt.Sprintf("chunk=%dMiB", chunkSize>>20), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(benchSize)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				if _, err := Split("producer", uint64(b.N), payload, chunkSize); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/benchSize, "alloc-x")
		})
	}
}
