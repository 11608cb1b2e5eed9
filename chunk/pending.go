package chunk

import (
	"time"

	"github.com/pulsargo/sdk/messageid"
)

// maxPreallocIDs bounds the capacity given to a message's chunk id slice up
// front, so that a lying num_chunks_from_msg cannot make the Assembler
// allocate by it; beyond this the slice grows by append as chunks arrive.
const maxPreallocIDs = 128

// pending is an incomplete message: its buffer and the chunks received.
type pending struct {
	uuid    string
	num     int32
	total   int64
	buf     []byte // exactly total bytes
	written int
	ids     []messageid.ID // ids[i] is the id of chunk i
	created time.Time

	prev, next *pending // arrival order of chunk 0, oldest first
}

// queue is the set of incomplete messages, by uuid and in arrival order, with
// the bytes they reserve.
type queue struct {
	byUUID   map[string]*pending
	head     *pending // oldest
	tail     *pending // newest
	reserved int64
}

func (q *queue) len() int { return len(q.byUUID) }

// push adds p as the newest message.
func (q *queue) push(p *pending) {
	if q.byUUID == nil {
		q.byUUID = make(map[string]*pending)
	}
	q.byUUID[p.uuid] = p
	p.prev, p.next = q.tail, nil
	if q.tail != nil {
		q.tail.next = p
	} else {
		q.head = p
	}
	q.tail = p
	q.reserved += p.total
}

// remove takes p out of the queue.
func (q *queue) remove(p *pending) {
	delete(q.byUUID, p.uuid)
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		q.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		q.tail = p.prev
	}
	p.prev, p.next = nil, nil
	q.reserved -= p.total
}
