package chunk

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestMaxPendingEvictsRepeatedly: limit 1 and four interleaved messages. The
// official Go client evicts once and then keeps 3 contexts; here only one
// is ever pending and the 3 older ones are reported.
func TestMaxPendingEvictsRepeatedly(t *testing.T) {
	a := NewAssembler(Options{MaxPendingMessages: 1})
	var evicted []Discarded
	for i := range 4 {
		uuid := fmt.Sprintf("m%d", i)
		msg, ds, err := a.Add(in(uuid, 0, 2, 2, []byte{byte(i)}, int64(i)))
		if msg != nil || err != nil {
			t.Fatalf("chunk 0 of %s: msg=%v err=%v", uuid, msg, err)
		}
		evicted = append(evicted, ds...)
		wantPending(t, a, 1, 2)
	}
	if len(evicted) != 3 {
		t.Fatalf("%d evictions, want 3: %v", len(evicted), evicted)
	}
	for i, d := range evicted {
		wantDiscarded(t, d, ErrEvicted, fmt.Sprintf("m%d", i), id(int64(i)))
	}
	// The newest completes; the evicted ones' later chunks are unknown.
	msg, ds, err := a.Add(in("m3", 1, 2, 2, []byte{9}, 13))
	if msg == nil || err != nil || len(ds) != 0 {
		t.Fatalf("m3: msg=%v ds=%v err=%v", msg, ds, err)
	}
	for i := range 3 {
		uuid := fmt.Sprintf("m%d", i)
		msg, ds, err = a.Add(in(uuid, 1, 2, 2, []byte{9}, int64(10+i)))
		wantRefused(t, msg, ds, err, ErrUnknownMessage, uuid, id(int64(10+i)))
	}
	wantPending(t, a, 0, 0)
}

func TestMaxPendingEvictsOldestByArrival(t *testing.T) {
	a := NewAssembler(Options{MaxPendingMessages: 2})
	addQuiet(t, a, in("a", 0, 3, 3, []byte{1}, 1))
	addQuiet(t, a, in("b", 0, 2, 2, []byte{1}, 2))
	addQuiet(t, a, in("a", 1, 3, 3, []byte{1}, 3)) // progress does not make "a" younger
	_, ds, err := a.Add(in("c", 0, 2, 2, []byte{1}, 4))
	if err != nil || len(ds) != 1 {
		t.Fatalf("ds=%v err=%v", ds, err)
	}
	wantDiscarded(t, ds[0], ErrEvicted, "a", id(1), id(3))
	// "b" (oldest) completes; "c" is then the oldest.
	if msg, _, _ := a.Add(in("b", 1, 2, 2, []byte{1}, 5)); msg == nil {
		t.Fatal("b did not complete")
	}
	addQuiet(t, a, in("d", 0, 2, 2, []byte{1}, 6))
	wantPending(t, a, 2, 4)
	_, ds, _ = a.Add(in("e", 0, 2, 2, []byte{1}, 7))
	if len(ds) != 1 {
		t.Fatalf("ds=%v", ds)
	}
	wantDiscarded(t, ds[0], ErrEvicted, "c", id(4))
	// "e" (newest) completes, "d" stays and is evicted next.
	if msg, _, _ := a.Add(in("e", 1, 2, 2, []byte{1}, 8)); msg == nil {
		t.Fatal("e did not complete")
	}
	addQuiet(t, a, in("f", 0, 2, 2, []byte{1}, 9))
	_, ds, _ = a.Add(in("g", 0, 2, 2, []byte{1}, 10))
	if len(ds) != 1 {
		t.Fatalf("ds=%v", ds)
	}
	wantDiscarded(t, ds[0], ErrEvicted, "d", id(6))
	wantPending(t, a, 2, 4)
}

func TestByteBudgetEvictsToMakeRoom(t *testing.T) {
	a := NewAssembler(Options{MaxPendingBytes: 100})
	addQuiet(t, a, in("a", 0, 4, 40, make([]byte, 10), 1))
	addQuiet(t, a, in("b", 0, 4, 40, make([]byte, 10), 2))
	wantPending(t, a, 2, 80)
	_, ds, err := a.Add(in("c", 0, 5, 50, make([]byte, 10), 3))
	if err != nil || len(ds) != 1 {
		t.Fatalf("ds=%v err=%v", ds, err)
	}
	wantDiscarded(t, ds[0], ErrEvicted, "a", id(1))
	wantPending(t, a, 2, 90)
	// A message of the whole budget evicts everything else.
	_, ds, err = a.Add(in("d", 0, 10, 100, make([]byte, 10), 4))
	if err != nil || len(ds) != 2 {
		t.Fatalf("ds=%v err=%v", ds, err)
	}
	wantDiscarded(t, ds[0], ErrEvicted, "b", id(2))
	wantDiscarded(t, ds[1], ErrEvicted, "c", id(3))
	wantPending(t, a, 1, 100)
}

func TestByteBudgetRefusesBeforeAllocating(t *testing.T) {
	a := NewAssembler(Options{MaxPendingBytes: 1 << 20, MaxMessageSize: 1 << 30})
	addQuiet(t, a, in("small", 0, 2, 100, make([]byte, 50), 1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, ds, err := a.Add(in("big", 0, 2, 2<<20, make([]byte, 1<<10), 2))
	runtime.ReadMemStats(&after)
	wantRefused(t, msg, ds, err, ErrOverBudget, "big", id(2))
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("refusing allocated %d bytes", n)
	}
	// Nothing was evicted for a message that could never fit.
	wantPending(t, a, 1, 100)
}

func TestMaxMessageSizeRefusesBeforeAllocating(t *testing.T) {
	a := NewAssembler(Options{MaxPendingBytes: 1 << 20}) // MaxMessageSize defaults to the budget
	for _, num := range []int32{1, 2} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		msg, ds, err := a.Add(in("huge", 0, num, 1<<31-1, make([]byte, 1<<10), 1))
		runtime.ReadMemStats(&after)
		wantRefused(t, msg, ds, err, ErrTooLarge, "huge", id(1))
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("refusing allocated %d bytes", n)
		}
	}
	// A cap below the budget.
	a = NewAssembler(Options{MaxPendingBytes: 1000, MaxMessageSize: 10})
	msg, ds, err := a.Add(in("p", 0, 2, 11, make([]byte, 5), 1))
	wantRefused(t, msg, ds, err, ErrTooLarge, "p", id(1))
	addQuiet(t, a, in("p", 0, 2, 10, make([]byte, 5), 2))
}

func TestSingleChunkIsNotPending(t *testing.T) {
	// A one-chunk message above the budget but within the cap completes.
	a := NewAssembler(Options{MaxPendingBytes: 10, MaxMessageSize: 100})
	msg, ds, err := a.Add(in("p", 0, 1, 50, make([]byte, 50), 1))
	if msg == nil || len(ds) != 0 || err != nil {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	wantPending(t, a, 0, 0)
}

func TestBudgetReleased(t *testing.T) {
	a := NewAssembler(Options{MaxPendingBytes: 100})
	addQuiet(t, a, in("a", 0, 2, 60, make([]byte, 30), 1))
	if msg, _, _ := a.Add(in("a", 1, 2, 60, make([]byte, 30), 2)); msg == nil {
		t.Fatal("no message")
	}
	wantPending(t, a, 0, 0) // the completed message's buffer is the caller's
	addQuiet(t, a, in("b", 0, 2, 60, make([]byte, 30), 3))
	_, _, err := a.Add(in("b", 1, 2, 60, make([]byte, 31), 4))
	if err == nil {
		t.Fatal("overrun accepted")
	}
	wantPending(t, a, 0, 0) // a refused message releases its reservation
	addQuiet(t, a, in("c", 0, 2, 100, make([]byte, 30), 5))
	wantPending(t, a, 1, 100)
	a.Reset()
	wantPending(t, a, 0, 0)
}

func TestExpiry(t *testing.T) {
	clock := newFakeClock()
	a := NewAssembler(Options{ExpireAfter: 10 * time.Second, Now: clock.Now})
	addQuiet(t, a, in("a", 0, 3, 3, []byte{1}, 1))
	addQuiet(t, a, in("a", 1, 3, 3, []byte{1}, 2))
	clock.Advance(5 * time.Second)
	addQuiet(t, a, in("b", 0, 2, 2, []byte{1}, 3))
	if ds := a.Expire(); ds != nil {
		t.Fatalf("Expire() too early = %v", ds)
	}
	clock.Advance(5*time.Second - 1)
	if ds := a.Expire(); ds != nil {
		t.Fatalf("Expire() 1ns early = %v", ds)
	}
	clock.Advance(1)
	// Lazily, on the next Add.
	msg, ds, err := a.Add(in("c", 0, 2, 2, []byte{1}, 4))
	if msg != nil || err != nil || len(ds) != 1 {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
	wantDiscarded(t, ds[0], ErrExpired, "a", id(1), id(2))
	msg, ds, err = a.Add(in("a", 2, 3, 3, []byte{1}, 5))
	wantRefused(t, msg, ds, err, ErrUnknownMessage, "a", id(5))
	// Explicitly, from the caller's ticker.
	clock.Advance(5 * time.Second)
	ds = a.Expire()
	if len(ds) != 1 {
		t.Fatalf("Expire() = %v", ds)
	}
	wantDiscarded(t, ds[0], ErrExpired, "b", id(3))
	wantPending(t, a, 1, 2)
	clock.Advance(time.Hour)
	if ds = a.Expire(); len(ds) != 1 {
		t.Fatalf("Expire() = %v", ds)
	}
	wantDiscarded(t, ds[0], ErrExpired, "c", id(4))
	wantPending(t, a, 0, 0)
}

func TestExpiryDefault(t *testing.T) {
	clock := newFakeClock()
	a := NewAssembler(Options{Now: clock.Now})
	addQuiet(t, a, in("a", 0, 2, 2, []byte{1}, 1))
	clock.Advance(59 * time.Second)
	if ds := a.Expire(); ds != nil {
		t.Fatalf("expired after 59 s: %v", ds)
	}
	clock.Advance(time.Second)
	if ds := a.Expire(); len(ds) != 1 {
		t.Fatalf("not expired after 60 s: %v", ds)
	}
}

func TestExpiryDisabled(t *testing.T) {
	clock := newFakeClock()
	a := NewAssembler(Options{ExpireAfter: -1, Now: clock.Now})
	addQuiet(t, a, in("a", 0, 2, 2, []byte{1}, 1))
	clock.Advance(1000 * time.Hour)
	if ds := a.Expire(); ds != nil {
		t.Fatalf("expired: %v", ds)
	}
	if msg, ds, err := a.Add(in("a", 1, 2, 2, []byte{1}, 2)); msg == nil || ds != nil || err != nil {
		t.Fatalf("msg=%v ds=%v err=%v", msg, ds, err)
	}
}

func TestExpiryClockBackwards(t *testing.T) {
	// Expiry follows arrival order: a clock that steps back can delay the
	// expiry of a younger message until the older one is due, never lose it.
	clock := newFakeClock()
	a := NewAssembler(Options{ExpireAfter: time.Second, Now: clock.Now})
	addQuiet(t, a, in("a", 0, 2, 2, []byte{1}, 1))
	clock.Advance(-10 * time.Second)
	addQuiet(t, a, in("b", 0, 2, 2, []byte{1}, 2))
	clock.Advance(10*time.Second + time.Second/2)
	if ds := a.Expire(); ds != nil {
		t.Fatalf("Expire() = %v", ds)
	}
	clock.Advance(time.Second / 2)
	ds := a.Expire()
	if len(ds) != 2 || ds[0].UUID != "a" || ds[1].UUID != "b" {
		t.Fatalf("Expire() = %v", ds)
	}
}

func TestReset(t *testing.T) {
	a := NewAssembler(Options{})
	if ds := a.Reset(); ds != nil {
		t.Fatalf("Reset() of nothing = %v", ds)
	}
	addQuiet(t, a, in("a", 0, 3, 3, []byte{1}, 1))
	addQuiet(t, a, in("b", 0, 2, 2, []byte{1}, 2))
	addQuiet(t, a, in("a", 1, 3, 3, []byte{1}, 3))
	ds := a.Reset()
	if len(ds) != 2 {
		t.Fatalf("Reset() = %v", ds)
	}
	wantDiscarded(t, ds[0], ErrReset, "a", id(1), id(3))
	wantDiscarded(t, ds[1], ErrReset, "b", id(2))
	wantPending(t, a, 0, 0)
	// Usable again afterwards.
	addQuiet(t, a, in("a", 0, 2, 2, []byte{1}, 4))
	if msg, _, _ := a.Add(in("a", 1, 2, 2, []byte{1}, 5)); msg == nil {
		t.Fatal("no message after Reset")
	}
}
