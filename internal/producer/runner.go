package producer

import (
	"context"
	"sync"
)

// runner runs functions one at a time, in the order pushed, on a goroutine
// of its own, so that user callbacks never run on a connection's reader
// goroutine and never under the producer's lock. The goroutine lives only
// while functions are queued: an idle producer holds none, so the
// producers of a topic with a thousand partitions cost no goroutines while
// nothing completes.
type runner struct {
	mu      sync.Mutex
	fns     []func()
	running bool       // a goroutine is draining fns
	idle    *sync.Cond // signalled when the goroutine stops; on mu
	closed  bool
}

func newRunner() *runner {
	r := &runner{}
	r.idle = sync.NewCond(&r.mu)
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
	start := !r.running
	r.running = true
	r.mu.Unlock()
	if start {
		go r.run()
	}
}

// run drains the queue, then stops.
func (r *runner) run() {
	for {
		r.mu.Lock()
		fns := r.fns
		r.fns = nil
		if len(fns) == 0 {
			r.running = false
			r.idle.Broadcast()
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		for _, f := range fns {
			f()
		}
	}
}

// close runs what is queued and returns once it has run; later pushes run
// on their callers.
func (r *runner) close() {
	r.mu.Lock()
	r.closed = true
	for r.running {
		r.idle.Wait()
	}
	r.mu.Unlock()
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
