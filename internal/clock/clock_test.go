package clock

import (
	"testing"
	"time"
)

func TestFakeRunsDueCallbacksInOrder(t *testing.T) {
	c := NewFake(time.Unix(100, 0))
	var got []int
	c.AfterFunc(3*time.Second, func() { got = append(got, 3) })
	c.AfterFunc(1*time.Second, func() { got = append(got, 1) })
	stop := c.AfterFunc(2*time.Second, func() { got = append(got, 2) })
	c.AfterFunc(10*time.Second, func() { got = append(got, 10) })
	if !stop() || stop() {
		t.Fatal("stop must report true once")
	}
	c.Advance(5 * time.Second)
	if len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("fired %v, want [1 3]", got)
	}
	if !c.Now().Equal(time.Unix(105, 0)) {
		t.Fatalf("now %v", c.Now())
	}
	// A callback may schedule another.
	c.AfterFunc(time.Second, func() { c.AfterFunc(time.Second, func() { got = append(got, 99) }) })
	c.Advance(time.Second)
	c.Advance(5 * time.Second)
	if got[len(got)-1] != 99 && got[len(got)-2] != 99 {
		t.Fatalf("nested callback did not fire: %v", got)
	}
}

func TestReal(t *testing.T) {
	var c Clock = Real{}
	done := make(chan struct{})
	c.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	if c.Now().IsZero() {
		t.Fatal("zero time")
	}
}
