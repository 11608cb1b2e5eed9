package wire

import (
	"testing"
)

func benchPayload(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i * 7)
	}
	return p
}

func benchEncodeFrame(b *testing.B, size int) {
	payload := benchPayload(size)
	cmd := sendCommand(1, 1)
	meta := sampleMeta("bench-producer", 1)
	var buf []byte
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		var err error
		buf, err = AppendPayloadFrame(buf[:0], cmd, meta, payload)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// benchEncodeHeader is the zero-copy path: the header is written and the
// payload only checksummed.
func benchEncodeHeader(b *testing.B, size int) {
	payload := benchPayload(size)
	cmd := sendCommand(1, 1)
	meta := sampleMeta("bench-producer", 1)
	var buf []byte
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		var err error
		buf, err = AppendPayloadHeader(buf[:0], cmd, meta, payload)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecodeFrame(b *testing.B, size int) {
	frame, err := AppendPayloadFrame(nil, sendCommand(1, 1), sampleMeta("bench-producer", 1), benchPayload(size))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, err := DecodeFrame(frame, 2<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// loopReader repeats data forever, like a connection carrying the same frame.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.data[l.off:])
		n += c
		l.off = (l.off + c) % len(l.data)
	}
	return n, nil
}

func benchReadFrame(b *testing.B, size int) {
	frame, err := AppendPayloadFrame(nil, sendCommand(1, 1), sampleMeta("bench-producer", 1), benchPayload(size))
	if err != nil {
		b.Fatal(err)
	}
	r := NewReader(&loopReader{data: frame}, 2<<20)
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, err := r.ReadFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodePayloadFrame1KiB(b *testing.B)  { benchEncodeFrame(b, 1<<10) }
func BenchmarkEncodePayloadHeader1KiB(b *testing.B) { benchEncodeHeader(b, 1<<10) }
func BenchmarkEncodePayloadHeader1MiB(b *testing.B) { benchEncodeHeader(b, 1<<20) }
func BenchmarkDecodeFrame1KiB(b *testing.B)         { benchDecodeFrame(b, 1<<10) }
func BenchmarkDecodeFrame1MiB(b *testing.B)         { benchDecodeFrame(b, 1<<20) }
func BenchmarkReadFrame1KiB(b *testing.B)           { benchReadFrame(b, 1<<10) }
func BenchmarkReadFrame1MiB(b *testing.B)           { benchReadFrame(b, 1<<20) }

func BenchmarkSplitBatch100(b *testing.B) {
	var payload []byte
	for range 100 {
		payload, _ = AppendBatchEntry(payload, nil, benchPayload(100))
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if err := SplitBatch(payload, 100, nil); err != nil {
			b.Fatal(err)
		}
	}
}
