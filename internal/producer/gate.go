package producer

import (
	"context"
	"sync"
	"sync/atomic"
)

// gate orders sends around a chunked message whose chunks are counted
// against the memory limit as they go (see feed): such a message holds the
// gate alone while its chunks are handed to the connection, every other
// send of the producer holds it shared from its wait for room until its
// message is queued. So nothing is queued behind a message still being fed
// (its receipts must come first), and no message waiting unwritten behind
// it holds memory the feed needs. A waiting feed keeps new sends out, so
// it is not starved. Waits end with their context.
//
// Every send takes and releases it shared, so that path is one atomic
// operation each way, with no lock and no allocation; mu and the channel
// are for the waits around a feed.
type gate struct {
	// state counts the shared holders (gateReaders), whether a feed holds
	// it (gateWriter) and the feeds waiting (in units of gateWaiter). Only
	// holders of mu change the feed bits; shared holders change the count
	// without it.
	state   atomic.Int64
	mu      sync.Mutex
	changed chan struct{} // closed on a release that a waiter may want; nil while nobody waits
}

const (
	gateReaders = 1<<31 - 1 // mask of the shared holders' count
	gateWriter  = 1 << 31   // a feed holds the gate
	gateWaiter  = 1 << 32   // one feed waiting
)

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
	for {
		s := g.state.Load()
		if s&^gateReaders != 0 {
			return false
		}
		if g.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// rlock takes the gate shared, waiting for feeds to end or ctx.
func (g *gate) rlock(ctx context.Context) error {
	for {
		if g.tryRLock() {
			return nil
		}
		g.mu.Lock()
		if g.state.Load()&^gateReaders == 0 {
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
	if s := g.state.Add(-1); s&gateReaders == 0 && s&^gateReaders != 0 {
		g.mu.Lock()
		g.broadcast()
		g.mu.Unlock()
	}
}

// lock takes the gate alone, waiting for every other hold to end or ctx.
func (g *gate) lock(ctx context.Context) error {
	g.mu.Lock()
	g.state.Add(gateWaiter)
	for {
		s := g.state.Load()
		if s&(gateWriter|gateReaders) == 0 {
			if g.state.CompareAndSwap(s, s-gateWaiter+gateWriter) {
				break
			}
			continue // a shared hold was released meanwhile
		}
		// A shared holder that releases after this point sees the waiter
		// and broadcasts under mu, so after ch is taken.
		ch := g.waitCh()
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			g.mu.Lock()
			g.state.Add(-gateWaiter)
			g.broadcast()
			g.mu.Unlock()
			return ctx.Err()
		}
		g.mu.Lock()
	}
	g.mu.Unlock()
	return nil
}

// unlock releases the hold taken by lock.
func (g *gate) unlock() {
	g.mu.Lock()
	g.state.Add(-gateWriter)
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
