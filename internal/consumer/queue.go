package consumer

// initialAutoQueueSize is where an auto-scaled receiver queue starts, as
// the official Go client's.
const initialAutoQueueSize = 1

// window is the receiver queue's flow control: how many permits the broker
// is given. A plain queue has ReceiverQueueSize; an auto-scaled one starts
// at one message and doubles, up to ReceiverQueueSize, each time a message
// is handed out after the queue ran dry of permits (the official client's
// rule); a zero queue gives the broker one permit per waiting Receive.
type window struct {
	size    int  // permits granted at subscribe and the refill threshold's base; 0 for a zero queue
	max     int  // ReceiverQueueSize
	auto    bool // AutoScaleQueue
	zero    bool // ZeroQueue
	hint    bool // auto: every permit was in use when a message arrived
	waiting bool // zero: a Receive waits for a message
	credit  int  // zero: permits the broker holds and has not used (0 or 1)
}

func newWindow[T any](o Options[T]) window {
	w := window{size: o.ReceiverQueueSize, max: o.ReceiverQueueSize, auto: o.AutoScaleQueue, zero: o.ZeroQueue}
	switch {
	case w.zero:
		w.size, w.auto = 0, false
	case w.auto:
		w.size = min(initialAutoQueueSize, w.max)
	}
	return w
}

// received notes the receiver queue after an entry arrived: with every
// permit in use (consumed but not granted back, or queued) the queue is too
// small for the rate the application consumes at.
func (w *window) received(queued, permits int) {
	if w.auto {
		w.hint = queued+permits >= w.size
	}
}

// handedOut runs when the application took a message; it returns the
// permits an auto-scaled queue grew by.
func (w *window) handedOut() int {
	w.waiting = false
	if !w.auto || !w.hint {
		return 0
	}
	w.hint = false
	n := min(w.max, 2*w.size)
	if n <= w.size {
		return 0
	}
	grown := n - w.size
	w.size = n
	return grown
}

// QueueSize returns the receiver queue's current size: ReceiverQueueSize,
// what an auto-scaled queue has grown to, or 0 for a zero queue.
func (e *Engine[T]) QueueSize() int {
	n := -1
	_ = e.call(func() { n = e.window.size })
	return n
}

// grant returns n permits; FLOW is sent once half the queue is free. A
// zero queue instead asks for the next message if a Receive waits for one.
func (e *Engine[T]) grant(n int) {
	if e.window.zero {
		e.zeroFlow()
		return
	}
	e.permits += n
	if e.streamGate() {
		return
	}
	if e.state != stateReady || e.cn == nil || e.permits < max(1, e.window.size/2) {
		return
	}
	if e.o.Memory.full() && (len(e.queue) > 0 || len(e.parked) > 0) {
		// The consumer memory budget is used up: withheld until it has
		// room or this queue is empty (memoryFreed, handedOut).
		e.o.Memory.wakeOnRelease(e.memWake)
		return
	}
	e.sendFlow(e.permits)
	e.permits = 0
}

// Want tells a zero-queue engine that a Receive waits: unless a message is
// queued or asked for already, the broker gets one permit. It does nothing
// for other engines.
func (e *Engine[T]) Want() {
	e.do(func() {
		if e.window.zero {
			e.window.waiting = true
			e.zeroFlow()
		}
	})
}

// zeroFlow gives the broker one permit when a zero-queue engine has a
// Receive waiting, nothing queued and no permit outstanding.
func (e *Engine[T]) zeroFlow() {
	w := &e.window
	if !w.zero || !w.waiting || w.credit > 0 || len(e.queue) > 0 || len(e.parked) > 0 || e.state != stateReady || e.cn == nil {
		return
	}
	w.credit = 1
	e.sendFlow(1)
}
