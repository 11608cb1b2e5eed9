package ledger

import (
	"sync/atomic"

	"github.com/pulsargo/sdk/internal/prefault"
)

// Slab sizes of the arena that holds a ledger's payloads. Each ledger's
// first slab is small, so that a ledger with a few entries holds little
// memory; each next slab of the same ledger doubles, up to maxSlab (or the
// arena's cap, a sixteenth of a Cache's budget). So the unused tail of a
// ledger's last slab is never larger than what its earlier slabs hold plus
// firstSlab: slabs take at most twice their entries' bytes (plus 4 KiB per
// ledger). Slabs of 4 MiB and more hold whole 2 MiB blocks, which
// internal/prefault backs with huge pages: the large slabs of a topic that
// receives chunks take one page fault per 2 MiB instead of one per 4 KiB.
const (
	firstSlab = 4 << 10
	maxSlab   = 32 << 20
	// OwnBufferAt is the payload size from which an entry gets a buffer of
	// its own instead of a place in a slab: a slab holds at least four
	// entries, so at most a quarter of it is left unused when the next
	// entry does not fit. Such an entry, when Given, keeps the caller's
	// buffer. It is above the broker's default maximum message size
	// (5 MiB), so chunks are copied into slabs.
	OwnBufferAt = maxSlab / 4
	// prefaultSlab is the slab size from which slabs are prefaulted: a
	// ledger that has filled its smaller slabs is likely to fill this one.
	prefaultSlab = 1 << 20
	// metaChunk is the size of the buffers entry metadata is copied into.
	metaChunk = 16 << 10
)

// slab is a buffer that successive payloads of one ledger fill one after
// the other. Payloads are never modified once copied, so a slab is only
// ever appended to. Its bytes are dropped (set to nil) when its Cache
// evicts it, when every durable subscription has acknowledged its entries
// (Ledger.DropConsumed) or when its ledger goes; the entries in it are then
// read back from the store. A reader that loaded the bytes before keeps
// them: the garbage collector frees a slab once nobody holds a slice of it.
type slab struct {
	bytes  atomic.Pointer[[]byte]
	size   int64 // the capacity counted against the Cache
	ledger int64
	used   int      // bytes filled (the owning Ledger's goroutine only)
	last   Position // the last entry in it (the owning Ledger's goroutine only)

	// Guarded by the Cache's mutex.
	prev, next *slab
	cached     bool
}

// buf returns the slab's bytes, nil once dropped.
func (s *slab) buf() []byte {
	if p := s.bytes.Load(); p != nil {
		return *p
	}
	return nil
}

// arena copies entries into slabs (payloads) and small chunks (metadata,
// which stays in memory as long as its entry). Payloads of one ledger share
// slabs, never with another ledger's, so that a trimmed ledger's slabs go
// with it.
//
// An entry of OwnBufferAt bytes or more that the caller has Given up is
// kept as it is, without a copy: the buffer it arrived in (a pooled frame
// buffer the connection gives up) is as good as one of its own.
//
// Copying decouples what a ledger keeps from the buffers the entry
// arrived in: a connection reads frames into recycled buffers (hot memory)
// and the topic's goroutine writes each entry once into its slab, rather
// than the connection's reader writing every byte into freshly allocated
// memory, one allocation per entry. Slabs are prefaulted (internal/prefault).
// This holds for 1 MiB chunks too: on a 2-vCPU AMD EPYC VM the stub took
// SENDs of 1 MiB at 284-828 MB/s when it kept each one in the buffer it
// was read into (reading and checksumming into cold memory, 4 KiB pages)
// and at 504-1,387 MB/s when it copied them into 32 MiB slabs
// (BenchmarkSendReceipt1MiB, three runs each).
type arena struct {
	cache *Cache // nil: slabs are never dropped for a budget
	limit int    // the largest slab (maxSlab, or less under a small Cache)

	cur  *slab // the slab being filled
	next int   // size of cur's ledger's next slab

	meta []byte // the unused rest of the current metadata chunk

	// slabs are every slab of the Ledger's live entries, oldest first;
	// the first consumed of them have been dropped (DropConsumed).
	slabs    []*slab
	consumed int
}

func newArena(c *Cache) arena {
	a := arena{cache: c, limit: maxSlab}
	if c != nil {
		a.limit = int(min(max(c.budget/16, firstSlab), maxSlab))
	}
	return a
}

// copyMeta returns a copy of meta, which lives as long as its entry.
func (a *arena) copyMeta(meta []byte) []byte {
	n := len(meta)
	if n == 0 {
		return []byte{}
	}
	if n > metaChunk/4 {
		return append(make([]byte, 0, n), meta...)
	}
	if len(a.meta) < n {
		a.meta = make([]byte, metaChunk)
	}
	m := append(a.meta[:0:n], meta...)
	a.meta = a.meta[n:]
	return m
}

// place returns where the payload of the entry at pos is kept: a slab and
// the payload's offset in it (a copy of payload; payload itself, when Given
// and OwnBufferAt bytes or more). An empty payload has no slab.
func (a *arena) place(pos Position, payload []byte, own Ownership) (*slab, int) {
	n := len(payload)
	if n == 0 {
		return nil, 0
	}
	if n >= OwnBufferAt {
		b := payload[:n:n]
		if own != Given {
			b = prefault.Make(n, n)
			copy(b, payload)
		}
		s := a.newSlab(pos.Ledger, b)
		s.used, s.last = n, pos
		return s, 0
	}
	s := a.cur
	if s == nil || s.ledger != pos.Ledger || s.size-int64(s.used) < int64(n) || s.buf() == nil {
		s = a.startSlab(pos.Ledger, n)
	}
	off := s.used
	copy(s.buf()[off:off+n], payload)
	s.used += n
	s.last = pos
	return s, off
}

// startSlab starts the next slab of ledger id, with room for at least n
// bytes, and makes it the current one.
func (a *arena) startSlab(id int64, n int) *slab {
	if a.cur == nil || a.cur.ledger != id || a.cur.buf() == nil {
		// A new ledger, or the current slab was dropped (the cache is
		// full, or all of it consumed): start small again, so that a
		// topic whose slabs keep being dropped does not take a large
		// slab for each entry.
		a.next = firstSlab
	}
	size := max(a.next, firstSlab)
	for size < n {
		size *= 2
	}
	var b []byte
	if size >= prefaultSlab {
		// The slab is filled whole, entry after entry, and nothing reads
		// a byte of it before an entry is copied there: it is not cleared
		// first, and its pages are mapped in one system call rather than
		// faulted in one by one by the copies. Not the small first slabs
		// of a ledger, which may stay mostly empty.
		b = prefault.Make(size, size)
	} else {
		b = make([]byte, size)
	}
	a.next = min(2*size, a.limit)
	a.cur = a.newSlab(id, b)
	return a.cur
}

// newSlab makes a slab of b for ledger id, counted by the cache.
func (a *arena) newSlab(id int64, b []byte) *slab {
	s := &slab{size: int64(cap(b)), ledger: id}
	s.bytes.Store(&b)
	a.slabs = append(a.slabs, s)
	if a.cache != nil {
		a.cache.add(s)
	}
	return s
}

// drop drops the bytes of s (its ledger is gone or its entries consumed).
func (a *arena) drop(s *slab) {
	if a.cache != nil {
		a.cache.remove(s)
	} else {
		s.bytes.Store(nil)
	}
}

// dropBefore drops the slabs of the ledgers below id and forgets them.
func (a *arena) dropBefore(id int64) {
	k := 0
	for k < len(a.slabs) && a.slabs[k].ledger < id {
		a.drop(a.slabs[k])
		k++
	}
	a.slabs = append([]*slab(nil), a.slabs[k:]...)
	a.consumed = max(a.consumed-k, 0)
	if a.cur != nil && a.cur.ledger < id {
		a.cur = nil
	}
}

// dropConsumed drops the slabs whose entries are all at or before p.
func (a *arena) dropConsumed(p Position) {
	for a.consumed < len(a.slabs) && !p.Less(a.slabs[a.consumed].last) {
		a.drop(a.slabs[a.consumed])
		a.consumed++
	}
}

// dropAll drops every slab.
func (a *arena) dropAll() {
	for _, s := range a.slabs {
		a.drop(s)
	}
	a.slabs, a.consumed, a.cur = nil, 0, nil
}
