package producer

import (
	"context"
	"sync"
)

// runner runs functions one at a time, in the order pushed, on its own
// goroutine, so that user callbacks never run on a connection's reader
// goroutine and never under the producer's lock.
type runner struct {
	mu     sync.Mutex
	fns    []func()
	wake   chan struct{}
	closed bool
	done   chan struct{}
}

func newRunner() *runner {
	r := &runner{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go r.run()
	return r
}

// push queues f; after close, f runs at once on the caller's goroutine.
func (r *runner) push(f func()) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		f()
		return
	}
	r.fns = append(r.fns, f)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) run() {
	defer close(r.done)
	for {
		r.mu.Lock()
		fns, closed := r.fns, r.closed
		r.fns = nil
		r.mu.Unlock()
		for _, f := range fns {
			f()
		}
		if closed && len(fns) == 0 {
			return
		}
		if len(fns) == 0 {
			<-r.wake
		}
	}
}

// close runs what is queued and stops the goroutine; it returns when done.
func (r *runner) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	<-r.done
}

// barrier returns once every function pushed before it was called has run,
// or when ctx ends.
func (r *runner) barrier(ctx context.Context) error {
	ch := make(chan struct{})
	r.push(func() { close(ch) })
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
