package protocol

import "sync"

// PendingSendBytes is how many bytes of SEND frames a connection may hold
// that it has read and its topics have not yet stored (a topic copies an
// entry into its ledger, then releases the frame). Past it the connection
// reads nothing more until its topics catch up, as a Pulsar broker stops
// reading a connection whose publish buffer is full. It bounds what one
// connection holds in frames waiting for their topics (without it, 256
// SENDs a topic, of up to the maximum message size each), and it keeps the
// frames in flight within what the frame pool recycles (16 MiB a size
// class): a producer faster than its topic then does not make the read
// loop allocate a new buffer for each frame.
const PendingSendBytes = 16 << 20

// SendBudget counts the bytes of a connection's SEND frames that are on
// their way to their topics. The read loop takes a frame's bytes when it
// hands the frame over, and waits before reading the next frame while more
// than pendingSendBytes are taken; the topic goroutines give the bytes
// back as they release the frames. A frame larger than the budget is still
// read (alone). Safe for concurrent use; the zero value is ready.
type SendBudget struct {
	Mu   sync.Mutex
	Used int
	Room chan struct{} // while the read loop waits: closed once used fits again
}

// Take counts n bytes handed over.
func (b *SendBudget) Take(n int) {
	b.Mu.Lock()
	b.Used += n
	b.Mu.Unlock()
}

// Give returns n bytes taken, waking the read loop if it waits and they fit
// again.
func (b *SendBudget) Give(n int) {
	b.Mu.Lock()
	b.Used -= n
	if b.Room != nil && b.Used <= PendingSendBytes {
		close(b.Room)
		b.Room = nil
	}
	b.Mu.Unlock()
}

// Wait returns once no more than pendingSendBytes are taken (true), or
// when done closes first (false). One goroutine (the read loop) waits.
func (b *SendBudget) Wait(done <-chan struct{}) bool {
	b.Mu.Lock()
	if b.Used <= PendingSendBytes {
		b.Mu.Unlock()
		return true
	}
	if b.Room == nil {
		b.Room = make(chan struct{})
	}
	room := b.Room
	b.Mu.Unlock()
	select {
	case <-room:
		return true
	case <-done:
		return false
	}
}
