package wire

import (
	"math/bits"
	"sync"

	"github.com/pulsargo/sdk/internal/prefault"
)

// Buffers below this size are not pooled: they are cheap to allocate and
// the garbage collector handles them well.
const minPooledBuffer = 64 << 10

// classSlack is added to each power-of-two class so that a frame carrying a
// power-of-two payload (a 1 MiB chunk plus its command and metadata) fits
// the class of its payload rather than the next one, twice as large.
const classSlack = 16 << 10

// A pool keeps, per size class, as many free buffers as fit in
// bytesPerClass, and at least minBuffersPerClass.
const (
	bytesPerClass      = 16 << 20
	minBuffersPerClass = 2
)

// BufferPool recycles the large frame buffers a Reader allocates, so that a
// consumer that copies chunk payloads into a reassembly buffer does not pay
// a second allocation per byte. Buffers come in size classes of a power of
// two (from 64 KiB) plus 16 KiB; each class keeps at most 16 MiB of free buffers (at least
// two), so an idle pool holds a bounded amount of memory. It is safe for concurrent use; the zero
// value is not usable, call NewBufferPool.
//
// A class's free buffers form a stack: the buffer released last is the
// first taken again, so that a steady stream of frames cycles through the
// few buffers whose bytes are likeliest still in a cache (the kernel then
// copies a frame into memory it reaches fast) rather than through all of
// them in turn.
type BufferPool struct {
	mu      sync.Mutex
	classes [40]freeList
	min     int // buffers below this size are not pooled
}

// freeList is one class's free buffers, the last released at the end; at
// most cap(bufs) of them.
type freeList struct{ bufs [][]byte }

// pop takes the buffer released last, if any.
func (l *freeList) pop() ([]byte, bool) {
	if len(l.bufs) == 0 {
		return nil, false
	}
	b := l.bufs[len(l.bufs)-1]
	l.bufs[len(l.bufs)-1] = nil
	l.bufs = l.bufs[:len(l.bufs)-1]
	return b, true
}

// push keeps b unless the list is full.
func (l *freeList) push(b []byte) {
	if len(l.bufs) < cap(l.bufs) {
		l.bufs = append(l.bufs, b)
	}
}

// NewBufferPool returns an empty pool of buffers from 64 KiB: smaller
// frames get buffers of their own, which suits a reader whose frames may
// be kept (a consumer's messages alias their frame).
func NewBufferPool() *BufferPool { return NewBufferPoolFrom(minPooledBuffer) }

// NewBufferPoolFrom returns an empty pool that recycles buffers of minSize
// bytes and more (every size when minSize <= 0); the classes below 16 KiB
// share one class of 16 KiB buffers. It suits a reader that releases every
// frame soon after reading it (a broker that copies what it keeps): a
// small frame kept for long would hold its class's 16 KiB. Each class
// keeps at most 16 MiB of free buffers (at least two), as NewBufferPool's.
func NewBufferPoolFrom(minSize int) *BufferPool {
	p := &BufferPool{min: max(minSize, 0)}
	for i := class(p.min); i < len(p.classes); i++ {
		p.classes[i].bufs = make([][]byte, 0, max(minBuffersPerClass, bytesPerClass/classCap(i)))
	}
	return p
}

// class returns the size class of an n-byte buffer: the smallest c with
// n <= 1<<c + classSlack.
func class(n int) int {
	if n <= classSlack {
		return 0
	}
	return bits.Len(uint(n - classSlack - 1))
}

// classCap is the capacity of buffers of class c.
func classCap(c int) int { return 1<<c + classSlack }

// get returns a buffer of length n, from the pool when one is free.
func (p *BufferPool) get(n int) []byte {
	if p == nil || n < p.min {
		return make([]byte, n)
	}
	c := class(n)
	if c >= len(p.classes) {
		return make([]byte, n)
	}
	p.mu.Lock()
	b, ok := p.classes[c].pop()
	p.mu.Unlock()
	if ok {
		return b[:n]
	}
	// The frame is read into the buffer whole before any of it is read:
	// it is not cleared first, and those pages are mapped in at once (the
	// rest of the class's capacity only when a larger frame uses it).
	return prefault.Make(n, classCap(c))
}

// free returns a buffer of length n when the pool has one free, without
// allocating.
func (p *BufferPool) free(n int) ([]byte, bool) {
	if p == nil || n < p.min {
		return nil, false
	}
	c := class(n)
	if c >= len(p.classes) {
		return nil, false
	}
	p.mu.Lock()
	b, ok := p.classes[c].pop()
	p.mu.Unlock()
	if !ok {
		return nil, false
	}
	return b[:n], true
}

// getUncleared is get for a buffer its caller fills whole before reading
// any of it: without a pool, its bytes are not cleared first either
// (prefault.Make), as a pool's new buffers are not.
func (p *BufferPool) getUncleared(n int) []byte {
	if p == nil {
		return prefault.Make(n, n)
	}
	return p.get(n)
}

// put offers b back to the pool; buffers that do not fit a class exactly
// (not allocated by get) or find their class full are dropped.
func (p *BufferPool) put(b []byte) {
	if p == nil || cap(b) < p.min {
		return
	}
	c := class(cap(b))
	if c >= len(p.classes) || cap(b) != classCap(c) {
		return
	}
	p.mu.Lock()
	p.classes[c].push(b[:0])
	p.mu.Unlock()
}
