package engine

import (
	"sync"
)

// Publish rate limits, as Pulsar's PublishRateLimiterImpl: every SEND is
// charged, its messages and its metadata and payload bytes, to the broker's
// and its topic's publish buckets (RateLimits, policy publishRate). Nothing
// is refused: when a bucket runs out, the connection that sent it stops
// reading (Pulsar turns autoread off) until the bucket holds a token again,
// on Options.Clock; its SENDs, and its other commands, wait in the socket.
// The SENDs already read go on.

// PubHold counts the reasons a connection's reads are paused for the
// publish rates. Safe for concurrent use; the zero value is ready.
type PubHold struct {
	mu    sync.Mutex
	n     int
	clear chan struct{} // while the read loop waits: closed when n is 0
}

func (h *PubHold) Add() {
	h.mu.Lock()
	h.n++
	h.mu.Unlock()
}

func (h *PubHold) Release() {
	h.mu.Lock()
	if h.n--; h.n <= 0 {
		h.n = 0
		if h.clear != nil {
			close(h.clear)
			h.clear = nil
		}
	}
	h.mu.Unlock()
}

// Holding reports whether the reads are paused.
func (h *PubHold) Holding() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n > 0
}

// Wait returns once nothing holds the reads (true), or when done closes
// first (false). One goroutine (the read loop) waits.
func (h *PubHold) Wait(done <-chan struct{}) bool {
	h.mu.Lock()
	if h.n == 0 {
		h.mu.Unlock()
		return true
	}
	if h.clear == nil {
		h.clear = make(chan struct{})
	}
	clear := h.clear
	h.mu.Unlock()
	select {
	case <-clear:
		return true
	case <-done:
		return false
	}
}
