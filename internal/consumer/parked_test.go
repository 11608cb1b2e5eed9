package consumer

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/messageid"
)

// An engine counts itself in Options.Parked while it holds entries back
// compressed, once however many it holds: the consumer of a thousand
// partitions wakes its engines for a waiting Receive only while the count
// is positive.
func TestParkedCountsEnginesHoldingEntries(t *testing.T) {
	var parked atomic.Int32
	a := New(Options[*Message]{Topic: "a", Parked: &parked})
	b := New(Options[*Message]{Topic: "b", Parked: &parked})
	a.setParked(1)
	a.setParked(3)
	b.setParked(2)
	if got := parked.Load(); got != 2 {
		t.Fatalf("two engines hold entries: Parked = %d, want 2", got)
	}
	a.setParked(0)
	if got := parked.Load(); got != 1 {
		t.Fatalf("one engine holds entries: Parked = %d, want 1", got)
	}
	b.setParked(0)
	b.setParked(0)
	if got := parked.Load(); got != 0 {
		t.Fatalf("none holds entries: Parked = %d, want 0", got)
	}
	if a.parkedN.Load() != 0 || b.parkedN.Load() != 0 {
		t.Error("parkedN not kept")
	}
}

// An Ack that cannot fail is queued on the engine's loop, not waited for:
// with the loop busy it returns at once (a round trip per Ack was most of
// a receive-and-ack loop's time across 1,000 partitions), and the ack is
// applied when the loop gets to it, before what is queued after it. An id
// whose batch index is past the size it carries still waits, for its
// ErrUnknownID.
func TestAckIsQueuedNotWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := New(Options[*Message]{Topic: "persistent://public/default/acks", Subscription: "s"})
		defer e.Close()
		hold := make(chan struct{})
		e.do(func() { <-hold }) // the loop is busy
		acked := make(chan error, 1)
		go func() { acked <- e.Ack(context.Background(), messageid.New(7, 1, -1, -1, 0)) }()
		select {
		case err := <-acked:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("Ack waited for the busy loop")
		}
		bad := make(chan error, 1)
		go func() { bad <- e.Ack(context.Background(), messageidBatch(2, 5, 3)) }()
		synctest.Wait()
		select {
		case err := <-bad:
			t.Fatalf("an ack that fails returned before the loop ran it: %v", err)
		default:
		}
		close(hold)
		if err := <-bad; !errors.Is(err, ErrUnknownID) {
			t.Fatalf("batch index past its size: %v, want ErrUnknownID", err)
		}
		var grouped int
		if err := e.call(func() { grouped = e.acks.len() }); err != nil {
			t.Fatal(err)
		}
		if grouped != 1 {
			t.Fatalf("%d acknowledgments grouped, want the queued one", grouped)
		}
	})
}
