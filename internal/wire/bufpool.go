package wire

import "math/bits"

// Buffers below this size are not pooled: they are cheap to allocate and
// the garbage collector handles them well.
const minPooledBuffer = 64 << 10

// A pool keeps, per size class, as many free buffers as fit in
// bytesPerClass, and at least minBuffersPerClass.
const (
	bytesPerClass      = 16 << 20
	minBuffersPerClass = 2
)

// BufferPool recycles the large frame buffers a Reader allocates, so that a
// consumer that copies chunk payloads into a reassembly buffer does not pay
// a second allocation per byte. Buffers come in power-of-two size classes
// from 64 KiB; each class keeps at most 16 MiB of free buffers (at least
// two), so an idle pool holds a bounded amount of memory. It is safe for concurrent use; the zero
// value is not usable, call NewBufferPool.
type BufferPool struct {
	classes [40]chan []byte
}

// NewBufferPool returns an empty pool.
func NewBufferPool() *BufferPool {
	p := &BufferPool{}
	for i := class(minPooledBuffer); i < len(p.classes); i++ {
		p.classes[i] = make(chan []byte, max(minBuffersPerClass, bytesPerClass>>i))
	}
	return p
}

func class(n int) int { return bits.Len(uint(n - 1)) }

// get returns a buffer of length n, from the pool when one is free.
func (p *BufferPool) get(n int) []byte {
	if p == nil || n < minPooledBuffer {
		return make([]byte, n)
	}
	c := class(n)
	if c >= len(p.classes) {
		return make([]byte, n)
	}
	select {
	case b := <-p.classes[c]:
		return b[:n]
	default:
		return make([]byte, n, 1<<c)
	}
}

// put offers b back to the pool; buffers that do not fit a class exactly
// (not allocated by get) or find their class full are dropped.
func (p *BufferPool) put(b []byte) {
	if p == nil || cap(b) < minPooledBuffer {
		return
	}
	c := class(cap(b))
	if c >= len(p.classes) || cap(b) != 1<<c {
		return
	}
	select {
	case p.classes[c] <- b[:0]:
	default:
	}
}
