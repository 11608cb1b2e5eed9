package producer

import (
	"context"
	"sync"
)

// gate orders sends around a chunked message whose chunks are counted
// against the memory limit as they go (see feed): such a message holds the
// gate alone while its chunks are handed to the connection, every other
// send of the producer holds it shared from its wait for room until its
// message is queued. So nothing is queued behind a message still being fed
// (its receipts must come first), and no message waiting unwritten behind
// it holds memory the feed needs. A waiting feed keeps new sends out, so
// it is not starved. Waits end with their context.
type gate struct {
	mu      sync.Mutex
	readers int
	writer  bool
	writers int           // feeds waiting
	changed chan struct{} // closed on a release that a waiter may want; nil while nobody waits
}

func newGate() *gate { return &gate{} }

// waitCh is the channel closed by the next release that may let a waiter
// in, made on demand: sends that never wait (nearly all of them) allocate
// nothing. Called with g.mu held.
func (g *gate) waitCh() chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// tryRLock takes the gate shared if it is free of feeds now.
func (g *gate) tryRLock() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.writer || g.writers > 0 {
		return false
	}
	g.readers++
	return true
}

// rlock takes the gate shared, waiting for feeds to end or ctx.
func (g *gate) rlock(ctx context.Context) error {
	for {
		if g.tryRLock() {
			return nil
		}
		g.mu.Lock()
		if !g.writer && g.writers == 0 {
			g.mu.Unlock()
			continue // released meanwhile
		}
		ch := g.waitCh()
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// runlock releases a shared hold. Only a waiting feed cares, and only
// once the last shared hold is gone.
func (g *gate) runlock() {
	g.mu.Lock()
	g.readers--
	if g.readers == 0 {
		g.broadcast()
	}
	g.mu.Unlock()
}

// lock takes the gate alone, waiting for every other hold to end or ctx.
func (g *gate) lock(ctx context.Context) error {
	g.mu.Lock()
	g.writers++
	for g.writer || g.readers > 0 {
		ch := g.waitCh()
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			g.mu.Lock()
			g.writers--
			g.broadcast()
			g.mu.Unlock()
			return ctx.Err()
		}
		g.mu.Lock()
	}
	g.writers--
	g.writer = true
	g.mu.Unlock()
	return nil
}

// unlock releases the hold taken by lock.
func (g *gate) unlock() {
	g.mu.Lock()
	g.writer = false
	g.broadcast()
	g.mu.Unlock()
}

// broadcast wakes every waiter, if any. Called with g.mu held.
func (g *gate) broadcast() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}
