package frameq

import (
	"sync"
	"testing"
)

func TestQueueKeepsOrderAcrossPushers(t *testing.T) {
	q := New[int]()
	var wg sync.WaitGroup
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				q.Push(p*1000 + i)
			}
		}()
	}
	wg.Wait()
	<-q.Ready()
	items := q.Take()
	if len(items) != 4000 {
		t.Fatalf("got %d items", len(items))
	}
	last := map[int]int{0: -1, 1: -1, 2: -1, 3: -1}
	for _, v := range items {
		p, i := v/1000, v%1000
		if i <= last[p] {
			t.Fatalf("pusher %d out of order: %d after %d", p, i, last[p])
		}
		last[p] = i
	}
	if q.Take() != nil {
		t.Fatal("queue not empty after Take")
	}
}

func TestClosedQueueRefuses(t *testing.T) {
	q := New[string]()
	q.Push("a")
	q.Close()
	if q.Push("b") {
		t.Fatal("push after close succeeded")
	}
	if q.Take() != nil {
		t.Fatal("close should drop queued items")
	}
}
