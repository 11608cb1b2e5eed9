// Package frameq is the unbounded FIFO between the goroutines that produce
// outgoing frames and the one goroutine that writes them to a connection.
// Producers never block on a slow peer. The queue counts nothing itself:
// its user bounds it, by the protocol's own flow control (permits,
// pending-message limits) and, where a peer's requests add to it, by
// counting the bytes it pushes and pausing the source past a bound (a
// brokerstub connection stops reading its client past
// Options.WriteBufferHighWaterMark).
//
//	q := frameq.New[[]byte]()
//	q.Push(frame)
//	<-q.Ready()
//	for _, f := range q.Take() { ... }
package frameq

import "sync"

// Queue is an unbounded FIFO, safe for concurrent use.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T
	ready  chan struct{}
	closed bool
}

// New returns an empty queue.
func New[T any]() *Queue[T] { return &Queue[T]{ready: make(chan struct{}, 1)} }

// Push appends an item; it reports false once the queue is closed.
func (q *Queue[T]) Push(item T) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, item)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// Ready receives a value after one or more Pushes; the writer then calls
// Take.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Take removes and returns every queued item, or nil.
func (q *Queue[T]) Take() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// Close makes further Pushes fail and drops what is queued.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.items = nil
	q.mu.Unlock()
}
