package producer

import (
	"context"
	"time"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// pending is one message inside an entry.
type pending struct {
	cb        Callback
	done      Done // called with a and b instead of cb, when set
	a, b      any
	receipted Receipted // nil for none
	size      int       // uncompressed payload bytes
	at        time.Time // when Send was called, with metrics only
}

// withSize is pm with its payload size and send time filled in.
func withSize(pm pending, size int, at time.Time) pending {
	pm.size, pm.at = size, at
	return pm
}

// complete gives the message's outcome to its callback.
func (m *pending) complete(p *Producer, id messageid.MessageID, err error) {
	if m.done != nil {
		m.done(p, id, err, m.a, m.b)
		return
	}
	m.cb(id, err)
}

// entry is one unit sent to the broker and acknowledged by sequence id: a
// message sent alone, a batch of messages, or a chunked message (several
// frames sharing one sequence id, acknowledged chunk by chunk in order).
type entry struct {
	seq, highest uint64
	msgs         []pending
	batched      bool
	meta         *proto.MessageMetadata
	payload      []byte // (compressed) payload; chunks are slices of it
	plan         chunk.Plan
	chunks       int                     // 0: not chunked
	acked        int                     // chunk receipts received
	fed          int                     // chunks that may be written: their memory is held (all of them unless perChunk)
	wrote        int                     // chunks written on the current connection
	perChunk     bool                    // memory is held chunk by chunk, from feed to receipt (see feed)
	abort        context.CancelCauseFunc // ends the feed's wait when the entry finishes; nil for none
	stream       *stream                 // the payload read chunk by chunk (SendReader); nil for none
	first        messageid.ID
	mem          int64         // bytes reserved against the memory limit
	deadline     time.Time     // zero: no send timeout
	order        uint64        // position in the order of enqueueing
	finished     bool          // acknowledged or failed; its callbacks are queued
	done         chan struct{} // closed when finished, if a Flush waits
	err          error         // why it failed, set when finished
	written      time.Time     // when it was last written, with metrics only
	txn          *api.TxnID    // the transaction of its messages, nil for none
}

// queue is the FIFO of entries awaiting receipts, in send order.
type queue struct {
	items []*entry
	head  int
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) push(e *entry) { q.items = append(q.items, e) }

// peek returns the oldest entry, or nil.
func (q *queue) peek() *entry {
	if q.head == len(q.items) {
		return nil
	}
	return q.items[q.head]
}

// last returns the newest entry, or nil.
func (q *queue) last() *entry {
	if q.head == len(q.items) {
		return nil
	}
	return q.items[len(q.items)-1]
}

// pop removes the oldest entry.
func (q *queue) pop() *entry {
	e := q.peek()
	if e == nil {
		return nil
	}
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 64 && q.head > len(q.items)/2 {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return e
}

// remove takes e out of the queue wherever it is; it reports whether e was
// there.
func (q *queue) remove(e *entry) bool {
	for i := q.head; i < len(q.items); i++ {
		if q.items[i] == e {
			if i == q.head {
				q.pop()
				return true
			}
			copy(q.items[i:], q.items[i+1:])
			q.items[len(q.items)-1] = nil
			q.items = q.items[:len(q.items)-1]
			return true
		}
	}
	return false
}

// find returns the entry with sequence id seq, or nil.
func (q *queue) find(seq uint64) *entry {
	for i := q.head; i < len(q.items); i++ {
		if q.items[i].seq == seq {
			return q.items[i]
		}
	}
	return nil
}

// all returns the entries in order (aliasing the queue).
func (q *queue) all() []*entry { return q.items[q.head:] }

// takeAll empties the queue and returns its entries.
func (q *queue) takeAll() []*entry {
	out := append([]*entry(nil), q.items[q.head:]...)
	clear(q.items)
	q.items, q.head = q.items[:0], 0
	return out
}
