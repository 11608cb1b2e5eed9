package consumer

import "testing"

// TestMemoryBudget: charges always succeed, fits and full follow the
// bytes counted, and a release that leaves room wakes each waiting engine
// once (a release that leaves none wakes nobody).
func TestMemoryBudget(t *testing.T) {
	if m := NewMemory(0); m != nil || !m.fits(1<<40) || m.full() || m.Used() != 0 {
		t.Fatal("no budget must count nothing and always have room")
	}
	m := NewMemory(100)
	m.charge(150) // more than the budget: counted anyway
	if !m.full() || m.fits(1) || m.Used() != 150 {
		t.Fatalf("used %d: full %v, fits(1) %v", m.Used(), m.full(), m.fits(1))
	}
	a, b := make(chan struct{}, 1), make(chan struct{}, 1)
	m.wakeOnRelease(a)
	m.wakeOnRelease(a)
	m.wakeOnRelease(b)
	m.release(40) // 110: still no room
	if len(a)+len(b) != 0 {
		t.Fatal("woken while the budget is still used up")
	}
	m.release(60) // 50
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("woken: a %d, b %d; want both once", len(a), len(b))
	}
	if !m.fits(50) || m.fits(51) || m.full() {
		t.Fatalf("used %d: fits(50) %v, fits(51) %v", m.Used(), m.fits(50), m.fits(51))
	}
	<-a
	m.charge(60)
	m.release(10) // 100 - still full, nobody waits anyway
	m.release(1)
	if len(a) != 0 {
		t.Fatal("woken without waiting again")
	}
}
