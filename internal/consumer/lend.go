package consumer

import (
	"sync"
	"sync/atomic"

	"github.com/pulsargo/sdk/messageid"
)

// lender is an engine's side of its Outbox (outbox.go): queue[:lentN] are
// lent, and taken counts those a receiver took and the loop has not handed
// out yet.
type lender[T any] struct {
	mu    sync.Mutex // guards taken and the writing of epoch
	taken int
	epoch atomic.Uint64 // read by Outbox.compact without mu
	wake  chan struct{}
	lentN int // owned by the loop
	vs    []T // owned by the loop: lend's scratch
	// acks are the ids Ack queued for the loop (queueAck), under mu.
	acks, spare []messageid.MessageID
}

// maxQueuedAcks bounds the acks queued for the loop: past it Ack queues
// an operation, which waits for room on the loop.
const maxQueuedAcks = 4096

// keepAcks is the largest array of queued acks an engine keeps for the
// next ones: a thousand partitions keep a few KiB each, not a burst's.
const keepAcks = 256

// lends reports whether the engine lends its queue to an outbox now
// rather than hand it out on Out.
func (e *Engine[T]) lends() bool {
	return e.o.Outbox != nil && !e.o.Outbox.closed.Load()
}

// lend lends the messages of the queue not lent yet. Loop goroutine.
func (e *Engine[T]) lend() {
	if e.state == stateClosed || e.loan.lentN >= len(e.queue) {
		return
	}
	l := &e.loan
	vs := l.vs[:0]
	for _, m := range e.queue[l.lentN:] {
		vs = append(vs, e.o.Wrap(m))
	}
	if e.o.Outbox.push(e, l.epoch.Load(), vs) {
		l.lentN = len(e.queue)
	}
	clear(vs)
	l.vs = vs[:0]
}

// take records that a receiver took a message lent in epoch; false when it
// was recalled since. The first take since the loop last looked wakes it.
// Any goroutine.
func (e *Engine[T]) take(epoch uint64) bool {
	l := &e.loan
	l.mu.Lock()
	if epoch != l.epoch.Load() {
		l.mu.Unlock()
		return false
	}
	l.taken++
	first := l.taken == 1
	l.mu.Unlock()
	if first {
		e.wakeLender()
	}
	return true
}

// wakeLender makes the loop run to hand out what was taken, or to take
// back what it lent to an outbox that was closed.
func (e *Engine[T]) wakeLender() {
	select {
	case e.loan.wake <- struct{}{}:
	default:
	}
	e.kick()
}

// settle hands out the messages receivers took, in queue order, then
// acknowledges the ids Ack queued. Loop goroutine; the loop settles before
// anything else it does, so that an operation the application asks for
// after a Receive or an Ack finds its message handed out and acknowledged.
func (e *Engine[T]) settle() {
	l := &e.loan
	l.mu.Lock()
	n := l.taken
	l.taken = 0
	acks := l.acks
	l.acks, l.spare = l.spare, nil
	l.mu.Unlock()
	e.handOutTaken(n)
	for i, id := range acks {
		if _, _, err := e.ackOnLoop(id, false); err != nil {
			e.log.Warn("acknowledgment refused", "id", id, "err", err)
		}
		acks[i] = nil
	}
	if acks != nil && cap(acks) <= keepAcks {
		l.mu.Lock()
		if l.spare == nil {
			l.spare = acks[:0]
		}
		l.mu.Unlock()
	}
}

// queueAck queues an acknowledgment for the loop (see settle); false when
// maxQueuedAcks are queued already. The first one queued wakes the loop.
// Any goroutine.
func (e *Engine[T]) queueAck(id messageid.MessageID) bool {
	l := &e.loan
	l.mu.Lock()
	if len(l.acks) >= maxQueuedAcks {
		l.mu.Unlock()
		return false
	}
	l.acks = append(l.acks, id)
	first := len(l.acks) == 1
	l.mu.Unlock()
	if first {
		e.wakeLender()
	}
	return true
}

// recall takes back what the engine lent, before the queue is changed
// other than by appending: what receivers took is handed out, the rest is
// skipped by Take from now on. Loop goroutine.
func (e *Engine[T]) recall() {
	if e.o.Outbox == nil {
		return
	}
	l := &e.loan
	l.mu.Lock()
	n := l.taken
	l.taken = 0
	if l.lentN > n {
		l.epoch.Add(1)
	}
	l.mu.Unlock()
	e.handOutTaken(n)
	e.o.Outbox.recalled(l.lentN)
	l.lentN = 0
}

func (e *Engine[T]) handOutTaken(n int) {
	for range n {
		e.loan.lentN--
		e.handedOut()
	}
}
