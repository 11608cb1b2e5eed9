package producer

import (
	"sync"
	"sync/atomic"
)

// Buffers are batch payload buffers shared by the producers of one
// partitioned topic (Options.Buffers): a bounded list of buffers to reuse
// and the size a new one starts with. With many partitions, a partition
// sends a batch now and then; buffers kept per partition would mostly
// sit idle (memory times partitions) and every partition's first batches
// would grow their buffer by doubling. Shared, a batch finished on one
// partition gives its buffer to the next batch opened on any, and a new
// buffer starts at the size batches have reached on any partition.
// Safe for concurrent use; the zero value is ready.
type Buffers struct {
	mu   sync.Mutex
	free [][]byte
	hint atomic.Int64 // the largest batch payload seen, a new buffer's capacity
}

// get returns a buffer for a new batch, empty, of capacity at least the
// hint (nil while nothing was learned).
func (b *Buffers) get() []byte {
	hint := int(b.hint.Load())
	b.mu.Lock()
	if n := len(b.free); n > 0 {
		buf := b.free[n-1]
		b.free[n-1] = nil
		b.free = b.free[:n-1]
		b.mu.Unlock()
		if cap(buf) >= hint {
			return buf
		}
	} else {
		b.mu.Unlock()
	}
	if hint == 0 {
		return nil
	}
	return make([]byte, 0, (hint+bufGranule-1)/bufGranule*bufGranule)
}

// put keeps buf for reuse if fewer than limit buffers are kept and buf is
// as large as a new one would be. The limit is one partition's (maxSpare):
// the partitions together keep what one pending window needs, not one
// window's worth each.
func (b *Buffers) put(buf []byte, limit int) {
	if cap(buf) == 0 || cap(buf) < int(b.hint.Load()) {
		return
	}
	b.mu.Lock()
	if len(b.free) < limit {
		b.free = append(b.free, buf[:0])
	}
	b.mu.Unlock()
}

// bufGranule is what a new buffer's capacity is rounded up to. Full
// batches end a few bytes apart (wherever their last message did not
// fit), so the hint creeps up a few bytes at a time; buffers made at the
// exact hint would each be too small for the next raise, discarded by put
// and made anew: W1 allocated some 140 buffers of 128 KiB per producer for
// a window of 82.
const bufGranule = 16 << 10

// learn raises the hint to n, the size of a finished batch payload.
func (b *Buffers) learn(n int) {
	for {
		h := b.hint.Load()
		if int64(n) <= h || b.hint.CompareAndSwap(h, int64(n)) {
			return
		}
	}
}
