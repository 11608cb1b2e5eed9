package consumer

import (
	"runtime"
	"runtime/metrics"
	"unsafe"
	"weak"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/prefault"
	"github.com/pulsargo/sdk/messageid"
)

// Reassembly buffers.
//
// A chunked message is reassembled in a buffer of its whole size, handed
// to the application as the message's payload. In a young process (a
// short-lived program, a service's first messages) such a buffer is
// memory the process has never touched, and on a VM its first touch
// costs a guest and a host page fault per page: mapping in 64 MiB took
// 20-850 ms on the 2-vCPU VM of docs/benchmarks.md, against a few ms for
// memory the process had used before. The engine therefore takes a
// buffer, in this order, from:
//
//  1. a spare: the buffer of a reassembled message the engine dropped
//     before handing it out (a seek clears the queue), of a size between
//     the new message's and twice it. The application never saw it, so
//     nothing can read it while the chunks overwrite it. A spare is held
//     by a weak pointer: if a garbage collection comes first, the runtime
//     takes the memory back as it would any garbage;
//  2. the Go heap, after a collection, when payloads the application has
//     probably dropped are the only memory the buffer could reuse (see
//     needsCollection): the collection frees them, and this buffer and
//     the next ones take their pages instead of new ones. An engine whose
//     collections the runtime keeps following with its own stops (see
//     settle);
//  3. the Go heap (prefault.Make: not cleared, and mapped in ahead).
//
// A payload handed to the application is never reused by the engine: it
// is the application's, for as long as it keeps it.

// spareBuffers is how many dropped buffers an engine keeps for reuse.
const spareBuffers = 2

// collectFrom is the size from which a buffer may be worth a collection:
// below it, a collection's fixed cost (its pauses and sweep: 2-4 ms on
// that VM with a small heap) is about what the new memory costs, and it
// saves nothing.
const collectFrom = 4 << 20

// scanPerBuffer bounds a collection's cost, which the engine's loop waits
// for: the heap's scannable bytes (heap, stacks and globals: what marking
// reads at most) must be at most this many times the buffer's size.
const scanPerBuffer = 2

// followedLimit is how many of the engine's collections in a row the
// runtime may follow with one of its own before the next large buffer,
// before the engine stops collecting (see newBuffer). A fresh process's
// few large messages (a seek and its receive again: 2 to 3 collections)
// stay within it.
const followedLimit = 4

// reassembly is an engine's source of reassembly buffers; the loop owns
// it.
type reassembly struct {
	spares [spareBuffers]spare
	// handed is the bytes of reassembled payloads handed out or dropped
	// since the last collection the engine ran: memory a collection may
	// find free. (A collection the runtime ran meanwhile shows as heap
	// memory free.)
	handed int64
	// heap reads the runtime's figures and collect runs a collection;
	// tests replace them.
	heap    func() heapState
	collect func()
	// autoAt is the runtime's count of its own collections after the
	// engine's last one; followed counts the engine's collections in a
	// row after which the runtime collected on its own before the next
	// large buffer wanted one; settled is set once followed reaches
	// followedLimit: the engine runs no collection from then on.
	autoAt   uint64
	followed int
	settled  bool
	// stats, for tests: buffers taken from spares, and collections run.
	reused, collections int
}

// spare is a dropped buffer, held weakly.
type spare struct {
	p   weak.Pointer[byte]
	cap int
}

// heapState is what needsCollection reads of the runtime.
type heapState struct {
	free uint64 // heap memory free and still mapped in (not returned to the OS)
	scan uint64 // scannable bytes: heap, stacks and globals
	auto uint64 // collections the runtime ran on its own (not runtime.GC) so far
}

// options returns o with a NewBuffer, unless it has one, that takes the
// buffer as above. Its buffers are not cleared: the Assembler completes a
// message only once its chunks have written every byte.
func (r *reassembly) options(o chunk.Options) chunk.Options {
	if o.NewBuffer == nil {
		o.NewBuffer = r.newBuffer
	}
	return o
}

func (r *reassembly) newBuffer(n int) []byte {
	if b := r.takeSpare(n); b != nil {
		r.reused++
		return b
	}
	if n >= collectFrom && r.handed >= int64(n) && !r.settled {
		if st := r.readHeap(); needsCollection(n, r.handed, st) && !r.settle(st) {
			r.runCollection()
			r.handed = 0
			r.autoAt = r.readHeap().auto
		}
	}
	return prefault.Make(n, n)
}

// settle reports whether the engine should stop collecting before large
// buffers, now that one would be worth it (st): it should once the
// runtime has followed followedLimit of its collections in a row with one
// of its own before the next large buffer.
//
// A collection sets the runtime's heap goal from what is live at that
// moment, the payloads just dropped excluded. Where a buffer is about as
// large as the rest of the live heap (BenchmarkReceiveChunked64MiB: 64 MiB
// of chunks held, 64 MiB messages), the goal then leaves no room for the
// buffer itself: its allocation starts the runtime's own collection, which
// frees nothing, and the next buffer finds no memory free again. Each
// message then cost two collections, one of them waited for in the
// engine's loop (7.0-7.4 ms per 64 MiB message against 4.5-6.1 without
// the engine's collection), to save memory the heap would need only once:
// left alone, it grows by a buffer or two and the runtime's own
// collections free the dropped payloads before the next buffers from
// then on, as in a warm process.
func (r *reassembly) settle(st heapState) bool {
	if r.collections > 0 && st.auto != r.autoAt {
		r.followed++
	} else {
		r.followed = 0
	}
	r.settled = r.followed >= followedLimit
	return r.settled
}

// needsCollection reports whether a buffer of n bytes is worth a
// collection first: the heap has not n bytes free (so the buffer would be
// new memory), payloads of at least n bytes left the engine since the
// last collection (so it can probably free that much), and the heap holds
// little to mark: no more than those payloads, and no more than
// scanPerBuffer buffers.
//
// The last bound weighs what a collection reads against what it saves.
// Marking reads at most the scannable bytes (fewer: those of garbage are
// never read), and on the VM of docs/benchmarks.md it cost about what
// touching as many new bytes did (0.5-1.5 ns per byte against 0.4-2.5,
// prefaulted). What it saves is the first touch of the pages it frees:
// not only this buffer's, but those of the next buffers too, until the
// runtime would have collected on its own — which, in a heap whose goal
// large live payloads raise, is many buffers later. A bound of a share of
// the buffer's size refused the collection to a young process whose
// garbage (the small messages it read before) made its scannable bytes a
// little larger than one buffer, and every buffer until the runtime's own
// collection was new memory (W5: 4 to 5 of its 9 seeks at 10-37 ms
// against 4-8 ms once its memory was reused). The bound of scanPerBuffer
// buffers keeps the wait short where much is live: a service whose heap
// holds more to mark never gets one, and the runtime collects as before.
func needsCollection(n int, handed int64, st heapState) bool {
	return n >= collectFrom && handed >= int64(n) && st.free < uint64(n) &&
		st.scan <= uint64(min(handed, scanPerBuffer*int64(n)))
}

// heapMetrics are the runtime/metrics read into a heapState.
var heapMetrics = [...]string{
	"/memory/classes/heap/free:bytes",
	"/gc/scan/heap:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
	"/gc/cycles/automatic:gc-cycles",
}

func (r *reassembly) readHeap() heapState {
	if r.heap != nil {
		return r.heap()
	}
	var s [len(heapMetrics)]metrics.Sample
	for i := range s {
		s[i].Name = heapMetrics[i]
	}
	metrics.Read(s[:])
	u := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 1 << 62 // unknown on this Go: never worth a collection
		}
		return s[i].Value.Uint64()
	}
	return heapState{free: u(0), scan: u(1) + u(2) + u(3), auto: u(4)}
}

func (r *reassembly) runCollection() {
	r.collections++
	if r.collect != nil {
		r.collect()
		return
	}
	runtime.GC()
}

// left counts a message that left the engine (handed out, or dropped
// without becoming a spare): its reassembled payload may be garbage soon.
func (r *reassembly) left(m *Message) {
	if _, ok := m.ID.(messageid.ChunkMessageID); ok && m.Stream == nil {
		r.handed += int64(cap(m.Payload))
	}
}

// keepSpare keeps the payload of m, a message about to be dropped before
// it was handed out (its last reference goes with the queue), for reuse
// when it is a reassembled one worth keeping.
// Only the queue's messages qualify: a chunked message's payload (the
// reassembly buffer, or what decompressing or decrypting it produced) is
// referenced by that message alone, and a chunked message is never a
// batch.
func (r *reassembly) keepSpare(m *Message) {
	if _, ok := m.ID.(messageid.ChunkMessageID); !ok || m.Stream != nil || cap(m.Payload) < minSpare {
		r.left(m)
		return
	}
	b := m.Payload[:cap(m.Payload)]
	i := -1 // an empty slot, else the smallest spare if smaller than b
	for j := range r.spares {
		if r.spares[j].p.Value() == nil {
			i = j
			break
		}
		if r.spares[j].cap < len(b) && (i < 0 || r.spares[j].cap < r.spares[i].cap) {
			i = j
		}
	}
	if i < 0 {
		r.handed += int64(len(b)) // garbage now
		return
	}
	r.spares[i] = spare{p: weak.Make(unsafe.SliceData(b)), cap: len(b)}
}

// minSpare is the smallest buffer kept as a spare: smaller ones cost
// little to allocate.
const minSpare = 1 << 20

// takeSpare returns a spare of n to 2n bytes as a buffer of n, or nil.
func (r *reassembly) takeSpare(n int) []byte {
	for i := range r.spares {
		s := &r.spares[i]
		if s.cap < n || s.cap > 2*n {
			continue
		}
		p := s.p.Value()
		if p == nil {
			continue
		}
		b := unsafe.Slice(p, s.cap)[:n:n]
		*s = spare{}
		return b
	}
	return nil
}

// offer hands the head of the queue to a receiver waiting for it now, if
// there is one. The loop calls it between the events it takes at once: a
// chunked message completed by one event reaches its receiver before the
// next event starts reassembling another message, whose new buffer (64 MiB
// for a 64 MiB message, memory new to a young process) can take hundreds
// of milliseconds to map in on a VM.
func (e *Engine[T]) offer() {
	if len(e.queue) == 0 || e.state == stateClosed {
		return
	}
	if e.lends() {
		e.lend()
		return
	}
	if !e.headSet {
		e.head, e.headSet = e.o.Wrap(e.queue[0]), true
	}
	select {
	case e.o.Out <- e.head:
		e.handedOut()
	default:
	}
}
