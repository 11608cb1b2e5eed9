package producer

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestGate: a feed (lock) waits for the shared holders, keeps new ones out
// while it waits and holds, and a wait that ends with its context leaves
// the gate as it was.
func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate()
		if !g.tryRLock() {
			t.Fatal("free gate refused a shared hold")
		}
		locked := make(chan error, 1)
		go func() { locked <- g.lock(context.Background()) }()
		synctest.Wait()
		select {
		case <-locked:
			t.Fatal("lock taken while a shared hold is on")
		default:
		}
		if g.tryRLock() {
			t.Fatal("new shared hold let in ahead of a waiting feed")
		}
		g.runlock()
		if err := <-locked; err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := g.rlock(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("shared hold during a feed: %v", err)
		}
		ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
		defer cancel2()
		if err := g.lock(ctx2); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("second feed: %v", err)
		}
		g.unlock()
		if !g.tryRLock() {
			t.Fatal("gate not free after the feed and a feed that gave up")
		}
		g.runlock()
	})
}

// TestGateSharedHoldAllocatesNothing: every send takes and releases the
// gate shared; with no feed waiting that must not allocate (it made a new
// channel per release, one allocation per message).
func TestGateSharedHoldAllocatesNothing(t *testing.T) {
	g := newGate()
	allocs := testing.AllocsPerRun(1000, func() {
		if !g.tryRLock() {
			t.Fatal("free gate refused a shared hold")
		}
		g.runlock()
	})
	if allocs != 0 {
		t.Fatalf("shared hold and release: %v allocations, want 0", allocs)
	}
}

// TestGateExclusion: under concurrent shared holders and feeds, a feed
// never holds the gate together with anyone else, and every wait ends.
func TestGateExclusion(t *testing.T) {
	g := newGate()
	var inside, feeds atomic.Int32
	var wg sync.WaitGroup
	ctx := context.Background()
	for range 4 {
		wg.Go(func() {
			for range 2000 {
				if err := g.rlock(ctx); err != nil {
					t.Error(err)
					return
				}
				inside.Add(1)
				if feeds.Load() != 0 {
					t.Error("shared hold while a feed holds the gate")
				}
				inside.Add(-1)
				g.runlock()
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 300 {
				if err := g.lock(ctx); err != nil {
					t.Error(err)
					return
				}
				if feeds.Add(1) != 1 || inside.Load() != 0 {
					t.Error("feed holds the gate with another holder")
				}
				feeds.Add(-1)
				g.unlock()
			}
		})
	}
	wg.Wait()
	if s := g.state.Load(); s != 0 {
		t.Fatalf("gate state %#x after every hold was released, want 0", s)
	}
}
