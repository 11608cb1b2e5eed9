package brokerstub

import (
	"sync"

	"github.com/pulsargo/sdk/internal/proto"
)

// outFrame is one frame waiting to be written: the encoded header (the
// whole frame for a simple command) and, for a MESSAGE, the payload, which is
// written from the ledger's buffer without a copy.
type outFrame struct {
	cmd     *proto.BaseCommand
	header  []byte
	payload []byte
}

// outQueue is an unbounded FIFO of frames for a connection's writer. Topic
// goroutines push to it and never block on a slow client; flow permits bound
// how much message data can pile up.
type outQueue struct {
	mu     sync.Mutex
	frames []outFrame
	ready  chan struct{} // signalled (non-blocking) on push
	closed bool
}

func newOutQueue() *outQueue { return &outQueue{ready: make(chan struct{}, 1)} }

// push appends a frame; it reports false once the queue is closed.
func (q *outQueue) push(f outFrame) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.frames = append(q.frames, f)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// take removes and returns every queued frame, or nil when empty.
func (q *outQueue) take() []outFrame {
	q.mu.Lock()
	defer q.mu.Unlock()
	f := q.frames
	q.frames = nil
	return f
}

// close makes further pushes fail and drops what is queued.
func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.frames = nil
	q.mu.Unlock()
}
