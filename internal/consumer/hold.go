package consumer

import (
	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// parkedEntry is an entry received but not parsed yet because its
// decompressed size does not fit the memory budget (or because an earlier
// entry waits so): it holds the compressed payload, counted against the
// budget, behind the queue.
type parkedEntry struct {
	entry      messageid.ID
	cmsg       *chunk.Message
	cm         *proto.CommandMessage
	md         *proto.MessageMetadata
	payload    []byte
	brokerMeta *proto.BrokerEntryMetadata
	held       int64 // bytes counted against the budget
}

// mayParse reports whether p may be decompressed and queued now: it is not
// compressed (its bytes are in memory already), or its declared
// uncompressed size fits the budget, or the queue is empty and a receiver
// may take it (always without Options.Receivers, else while one waits).
// The declared size is checked against MaxMessageSize when decompressing.
func (e *Engine[T]) mayParse(p *parkedEntry) bool {
	if e.o.Memory == nil || compress.Type(p.md.GetCompression()) == compress.NONE {
		return true
	}
	if e.o.Memory.fits(int64(p.md.GetUncompressedSize())) {
		return true
	}
	if len(e.queue) > 0 {
		return false
	}
	return e.o.Receivers == nil || e.o.Receivers.Load() > 0
}

// park keeps p compressed, behind the queue and any entry parked before.
func (e *Engine[T]) park(p parkedEntry) {
	p.held = int64(len(p.payload))
	e.o.Memory.charge(p.held)
	e.parked = append(e.parked, p)
	e.setParked(len(e.parked))
	// A receiver raises Receivers, then reads parkedN (Wake); here parkedN
	// is set first and Receivers read after (in unpark), so a receiver
	// that comes meanwhile is never missed.
	e.unpark()
}

// unpark parses the parked entries that may be parsed now, in order; if
// one may not, it waits for the budget to have room (memoryFreed), for a
// receiver (Wake) or for the queue to empty (handedOut).
func (e *Engine[T]) unpark() {
	for len(e.parked) > 0 && e.state != stateClosed {
		p := &e.parked[0]
		if !e.mayParse(p) {
			e.o.Memory.wakeOnRelease(e.memWake)
			return
		}
		q := *p
		*p = parkedEntry{}
		e.parked = e.parked[1:]
		e.setParked(len(e.parked))
		e.o.Memory.release(q.held)
		e.brokerMeta = q.brokerMeta
		e.parseEntry(q.entry, q.cmsg, q.cm, q.md, q.payload)
	}
}

// dropParked forgets the parked entries (a reconnect or seek: the broker
// delivers them again).
func (e *Engine[T]) dropParked() {
	for i := range e.parked {
		e.o.Memory.release(e.parked[i].held)
	}
	clear(e.parked)
	e.parked = e.parked[:0]
	e.setParked(0)
}

// memoryFreed runs on the loop when the budget has room again: parked
// entries are parsed and withheld permits sent, as far as they now may.
func (e *Engine[T]) memoryFreed() {
	e.unpark()
	e.grant(0)
}

// Wake tells the engine that Options.Receivers was raised: an entry held
// back compressed because it does not fit the memory budget may now be
// decompressed. It costs an atomic load when nothing is held back.
func (e *Engine[T]) Wake() {
	if e.parkedN.Load() > 0 {
		e.do(e.unpark)
	}
}
