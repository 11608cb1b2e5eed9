package ledger

import "github.com/pulsargo/sdk/internal/prefault"

// Slab sizes of the arena that holds a ledger's entries. A topic's first
// slab is small, so that a topic with a few entries holds little memory;
// each next slab doubles, up to maxSlab. Slabs of 4 MiB and more hold
// whole 2 MiB blocks, which internal/prefault backs with huge pages: the
// large slabs of a topic that receives chunks take one page fault per
// 2 MiB instead of one per 4 KiB.
const (
	minSlab = 64 << 10
	maxSlab = 32 << 20
	// OwnBufferAt is the entry size (metadata and payload) from which an
	// entry gets a buffer of its own instead of a place in a slab: a slab
	// holds at least four entries, so at most a quarter of it is left
	// unused when the next entry does not fit. Such an entry, when Given,
	// keeps the caller's buffers. It is above the broker's default
	// maximum message size (5 MiB), so chunks are copied into slabs.
	OwnBufferAt = maxSlab / 4
	// prefaultSlab is the slab size from which slabs are prefaulted: a
	// topic that has filled its smaller slabs is likely to fill this one.
	prefaultSlab = 1 << 20
)

// arena copies entries into slabs: large buffers that successive entries
// of one ledger fill one after the other. Entries are never modified once
// copied, so a slab is only ever appended to; a slab is garbage once the
// entries in it are (their ledger trimmed or the topic deleted, and every
// frame that carried one written), because a slab holds entries of one
// ledger only.
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
	ledger int64  // the ledger whose entries the current slab holds
	free   []byte // the unused rest of the current slab
	next   int    // size of the next slab
}

// copyEntry returns copies of meta and payload, adjacent in one buffer,
// for an entry of ledger id; meta and payload themselves, when Given and
// OwnBufferAt bytes or more.
func (a *arena) copyEntry(id int64, meta, payload []byte, own Ownership) (m, p []byte) {
	n := len(meta) + len(payload)
	if n == 0 {
		return []byte{}, []byte{}
	}
	var buf []byte
	switch {
	case n >= OwnBufferAt && own == Given:
		return meta[:len(meta):len(meta)], payload[:len(payload):len(payload)]
	case n >= OwnBufferAt:
		buf = prefault.Make(n, n)[:0]
	default:
		if id != a.ledger || len(a.free) < n {
			a.newSlab(id, n)
		}
		buf = a.free[:0:n]
		a.free = a.free[n:]
	}
	buf = append(buf, meta...)
	buf = append(buf, payload...)
	return buf[:len(meta):len(meta)], buf[len(meta):n:n]
}

// newSlab starts a slab for ledger id with room for at least n bytes.
func (a *arena) newSlab(id int64, n int) {
	size := max(a.next, minSlab)
	for size < n {
		size *= 2
	}
	a.ledger = id
	if size >= prefaultSlab {
		// The slab is filled whole, entry after entry, and nothing reads
		// a byte of it before an entry is copied there: it is not cleared
		// first, and its pages are mapped in one system call rather than
		// faulted in one by one by the copies. Not the small first slabs
		// of a topic, which may stay mostly empty.
		a.free = prefault.Make(size, size)
	} else {
		a.free = make([]byte, size)
	}
	a.next = min(2*size, maxSlab)
}
