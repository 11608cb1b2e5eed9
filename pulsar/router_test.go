package pulsar

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestDefaultRouterKeys(t *testing.T) {
	r := NewDefaultRouter(javaStringHash, 1000, 128<<10, 10*time.Millisecond, false)
	// Java's "key-1".hashCode() is 101943363; mod 7 = 4.
	if got := r(&ProducerMessage{Key: "key-1"}, 7); got != int(javaStringHash("key-1")%7) || got != 101943363%7 {
		t.Fatalf("key-1 went to %d", got)
	}
	if got := r(&ProducerMessage{Key: "a", OrderingKey: "key-1"}, 7); got != 101943363%7 {
		t.Fatalf("the ordering key did not win: %d", got)
	}
	if got := r(&ProducerMessage{}, 1); got != 0 {
		t.Fatalf("one partition: %d", got)
	}
}

func TestDefaultRouterRoundRobinWithoutBatching(t *testing.T) {
	r := NewDefaultRouter(javaStringHash, 1000, 128<<10, 10*time.Millisecond, true)
	first := r(&ProducerMessage{}, 5)
	for i := 1; i < 12; i++ {
		if got := r(&ProducerMessage{}, 5); got != (first+i)%5 {
			t.Fatalf("message %d went to %d, want %d", i, got, (first+i)%5)
		}
	}
}

// With batching, the router stays on a partition for a batch's worth of
// messages, bytes or time.
func TestDefaultRouterBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewDefaultRouter(javaStringHash, 10, 1<<20, time.Hour, false)
		p := r(&ProducerMessage{}, 4)
		for i := 2; i <= 10; i++ {
			if got := r(&ProducerMessage{}, 4); got != p {
				t.Fatalf("message %d of a batch of 10 left partition %d for %d", i, p, got)
			}
		}
		next := r(&ProducerMessage{}, 4)
		if next != (p+1)%4 {
			t.Fatalf("the 11th message went to %d, want %d", next, (p+1)%4)
		}
		// By size: 3 messages of 400 bytes pass a 1000-byte batch.
		r = NewDefaultRouter(javaStringHash, 1000, 1000, time.Hour, false)
		p = r(&ProducerMessage{Payload: make([]byte, 400)}, 4)
		if r(&ProducerMessage{Payload: make([]byte, 400)}, 4) != p || r(&ProducerMessage{Payload: make([]byte, 400)}, 4) == p {
			t.Fatal("the router did not move on after the batch size")
		}
		// By time: the clock is read every 100/10 messages.
		r = NewDefaultRouter(javaStringHash, 100, 1<<20, 10*time.Millisecond, false)
		p = r(&ProducerMessage{}, 4)
		time.Sleep(20 * time.Millisecond)
		moved := false
		for range 10 {
			if r(&ProducerMessage{}, 4) != p {
				moved = true
			}
		}
		if !moved {
			t.Fatal("the router stayed past the batching delay")
		}
	})
}

func TestSinglePartitionRouter(t *testing.T) {
	r := NewSinglePartitionRouter()
	md := topicMetadata{n: 6}
	p := r(&ProducerMessage{}, md)
	for range 20 {
		if got := r(&ProducerMessage{Payload: []byte("x")}, md); got != p {
			t.Fatalf("unkeyed message went to %d, then %d", p, got)
		}
	}
	if got := r(&ProducerMessage{Key: "key-1"}, md); got != 101943363%6 {
		t.Fatalf("keyed message went to %d", got)
	}
}
