package consumer

import (
	"sync"
	"sync/atomic"
)

// Outbox is where the engines of one consumer lend the messages of their
// queues to its receivers, a batch at a time, instead of handing each one
// over a channel: a hand-over per message woke the partition's goroutine
// per message, which was most of what receiving from a thousand
// partitions cost (W6 of pulsarbench).
//
// A lent message stays in its engine's queue, counted against the memory
// budget and holding its flow permit, until a receiver takes it (Take);
// the engine then hands it out (permits, acknowledgment timeout, the
// recent ids) as when the application took it from Out. Each engine lends
// its queue in order, and Take gives the oldest lent message first, so a
// partition's messages are received in order.
//
// An engine that drops its queue (a seek, a reconnection, Close, a
// withdrawn copy) recalls what it lent: it moves to a new lending epoch,
// and Take skips, without handing out, every message lent in an earlier
// one. So a message queued before a Seek returned is never received after
// it. Recalled messages are forgotten as Take passes them, or all at once
// when they are more than half of the outbox, so it never holds more than
// twice what the queues do.
//
// Close turns the outbox off for good (a consumer whose channel the
// application reads, see Options.Outbox): the engines take back what they
// lent and deliver on Out.
type Outbox[T any] struct {
	mu     sync.Mutex
	items  []lent[T] // items[head:] are the messages lent, oldest first
	head   int
	stale  int // recalled messages still in items (an estimate, see recalled)
	ready  chan struct{}
	closed atomic.Bool
}

// lent is a message an engine lent in its epoch.
type lent[T any] struct {
	v     T
	e     *Engine[T]
	epoch uint64
}

// compactAfter is how many recalled messages the outbox may hold before
// push forgets them (when they are also more than half of it).
const compactAfter = 256

// keepCap is the largest array an empty outbox keeps for the next
// messages lent.
const keepCap = 4096

// NewOutbox returns an empty outbox.
func NewOutbox[T any]() *Outbox[T] {
	return &Outbox[T]{ready: make(chan struct{}, 1)}
}

// Ready is signalled when messages were lent; a receiver waiting on it
// calls Take, which may still find nothing (another receiver took them).
func (o *Outbox[T]) Ready() <-chan struct{} { return o.ready }

// Take returns the oldest message lent and not recalled, and tells its
// engine that it was handed out; false when there is none.
func (o *Outbox[T]) Take() (T, bool) {
	o.mu.Lock()
	for o.head < len(o.items) {
		it := o.items[o.head]
		o.items[o.head] = lent[T]{}
		o.head++
		if it.e.take(it.epoch) {
			more := o.head < len(o.items)
			o.mu.Unlock()
			if more {
				o.signal() // for another receiver waiting
			}
			return it.v, true
		}
		o.stale = max(0, o.stale-1)
	}
	o.items, o.head, o.stale = o.items[:0], 0, 0
	if cap(o.items) > keepCap {
		o.items = nil // a burst's array goes with it
	}
	o.mu.Unlock()
	var zero T
	return zero, false
}

// Len returns how many messages the outbox holds, recalled ones included.
func (o *Outbox[T]) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.items) - o.head
}

// Close turns the outbox off: what it holds is dropped and nothing more is
// lent; the engines that had lent messages are woken to take them back and
// deliver them on Out. It is idempotent.
func (o *Outbox[T]) Close() {
	if o.closed.Swap(true) {
		return
	}
	o.mu.Lock()
	var lenders []*Engine[T]
	seen := map[*Engine[T]]bool{}
	for _, it := range o.items[o.head:] {
		if !seen[it.e] {
			seen[it.e] = true
			lenders = append(lenders, it.e)
		}
	}
	o.items, o.head, o.stale = nil, 0, 0
	o.mu.Unlock()
	for _, e := range lenders {
		e.wakeLender()
	}
}

// push lends vs, which e lent in epoch; it reports false (nothing lent)
// once the outbox is closed.
func (o *Outbox[T]) push(e *Engine[T], epoch uint64, vs []T) bool {
	o.mu.Lock()
	if o.closed.Load() {
		o.mu.Unlock()
		return false
	}
	if o.stale > compactAfter && 2*o.stale > len(o.items)-o.head {
		o.compact()
	} else if o.head > 0 && 2*o.head >= len(o.items) {
		n := copy(o.items, o.items[o.head:])
		clear(o.items[n:])
		o.items, o.head = o.items[:n], 0
	}
	for _, v := range vs {
		o.items = append(o.items, lent[T]{v: v, e: e, epoch: epoch})
	}
	o.mu.Unlock()
	o.signal()
	return true
}

// compact forgets the recalled messages. Epochs only grow, so a message
// whose engine has moved on is recalled for good. o.mu is held.
func (o *Outbox[T]) compact() {
	n := 0
	for _, it := range o.items[o.head:] {
		if it.epoch == it.e.loan.epoch.Load() {
			o.items[n] = it
			n++
		}
	}
	clear(o.items[n:])
	o.items, o.head, o.stale = o.items[:n], 0, 0
}

// recalled counts n more recalled messages in the outbox. The count may
// run ahead of the truth (a message recalled while compact ran is counted
// after compact dropped it), which only makes compact run sooner.
func (o *Outbox[T]) recalled(n int) {
	if n <= 0 {
		return
	}
	o.mu.Lock()
	o.stale += n
	o.mu.Unlock()
}

func (o *Outbox[T]) signal() {
	select {
	case o.ready <- struct{}{}:
	default:
	}
}
