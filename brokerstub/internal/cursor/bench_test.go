package cursor

import (
	"math/rand"
	"testing"
)

// benchLayout has n positions in ledgers of 1000 entries with gaps between
// ledger ids.
func benchLayout(n int) *fakeLayout {
	l := &fakeLayout{pos: make([]Position, 0, n)}
	for led := int64(1); len(l.pos) < n; led += 2 {
		l.appendLedger(led, int64(min(1000, n-len(l.pos))))
	}
	return l
}

// BenchmarkAckIndividualRandom acks 100k positions in random order (one ack
// per op; a fresh cursor every 100k ops).
func BenchmarkAckIndividualRandom(b *testing.B) {
	const n = 100_000
	l := benchLayout(n)
	perm := rand.New(rand.NewSource(1)).Perm(n)
	c := New(pos(1, -1), l, Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % n
		if k == 0 && i > 0 {
			b.StopTimer()
			c = New(pos(1, -1), l, Options{})
			b.StartTimer()
		}
		c.AckIndividual(l.pos[perm[k]], nil, 1)
	}
}

// BenchmarkFlush10kRanges serializes a cursor holding 10,000 ranges.
func BenchmarkFlush10kRanges(b *testing.B) {
	l := benchLayout(20_001)
	c := New(pos(1, -1), l, Options{})
	for i := 1; i < len(l.pos); i += 2 {
		c.AckIndividual(l.pos[i], nil, 1)
	}
	if c.ranges.Len() != 10_000 {
		b.Fatalf("ranges = %d", c.ranges.Len())
	}
	b.ReportAllocs()
	b.ResetTimer()
	var size int
	for i := 0; i < b.N; i++ {
		c.dirty = true
		s, _ := c.Flush()
		size = len(s)
	}
	b.ReportMetric(float64(size), "state-bytes")
}
