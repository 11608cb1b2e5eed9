package consumer

import (
	"testing"
	"testing/synctest"
	"unsafe"

	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/consumer/consumertest"
	"github.com/pulsargo/sdk/messageid"
)

// sendChunks sends a chunked message's chunks and returns the message's
// chunk id.
func sendChunks(t *testing.T, p *consumertest.Producer, cs []consumertest.Chunk) messageid.MessageID {
	t.Helper()
	var first, last messageid.ID
	for i, c := range cs {
		id, err := p.SendRaw(ctxT(t), c.Meta, c.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = id
		}
		last = id
	}
	return messageid.NewChunk(first, last)
}

// A seek drops the reassembled message the engine had queued but not
// handed out, and its buffer is reused for the next chunked message of a
// similar size; the payload handed to the application before the seek is
// never reused or overwritten.
func TestSeekReusesDroppedBufferNeverHandedOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		pa, pb := pattern(1536<<10, 1), pattern(1536<<10+100, 2)
		ca, _ := p.Chunks(pa, 512<<10, compress.NONE)
		cb, _ := p.Chunks(pb, 512<<10, compress.NONE)
		idA := sendChunks(t, p, ca)
		sendChunks(t, p, cb)
		e, out := v.engine(topic, "s", nil)

		a := recv(t, out)
		sameBytes(t, a.Payload, pa)
		synctest.Wait() // b is reassembled and queued, not handed out
		var queued []byte
		if err := e.call(func() {
			if len(e.queue) == 1 {
				queued = e.queue[0].Payload
			}
		}); err != nil || queued == nil {
			t.Fatalf("b was not queued (%v)", err)
		}
		if err := e.Seek(ctxT(t), idA); err != nil {
			t.Fatal(err)
		}
		a2 := recv(t, out)
		sameBytes(t, a2.Payload, pa)
		if unsafe.SliceData(a2.Payload) != unsafe.SliceData(queued) {
			t.Error("a, delivered again after the seek, is not in the buffer of b that the seek dropped")
		}
		if unsafe.SliceData(a2.Payload) == unsafe.SliceData(a.Payload) {
			t.Fatal("a's buffer, handed out before the seek, was reused")
		}
		b := recv(t, out)
		sameBytes(t, b.Payload, pb)
		sameBytes(t, a.Payload, pa) // the first a, still held, untouched
		sameBytes(t, a2.Payload, pa)
		var reused int
		_ = e.call(func() { reused = e.bufs.reused })
		if reused != 1 {
			t.Errorf("%d buffers reused, want 1", reused)
		}
	})
}

// When one batch of events completes a chunked message and starts the
// next, the completed one goes to the waiting receiver before the next
// one's buffer is allocated (mapping in a large buffer can take hundreds
// of ms in a young process).
func TestCompletedMessageHandedOutBeforeNextBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newEnv(t)
		topic := newTopic(t)
		p := v.producer(topic)
		pa, pb := pattern(3000, 3), pattern(4000, 4)
		ca, _ := p.Chunks(pa, 1000, compress.NONE)
		cb, _ := p.Chunks(pb, 1000, compress.NONE)
		var e *Engine[*Message]
		var waiting int // messages queued when b's buffer was allocated
		e, out := v.engine(topic, "s", func(o *Options[*Message]) {
			o.Chunks.NewBuffer = func(n int) []byte {
				if n == len(pb) {
					waiting = len(e.queue) // on the loop
				}
				return make([]byte, n)
			}
		})
		// Hold the loop while a's chunks and b's first arrive, so that it
		// takes them as one batch of events.
		release := make(chan struct{})
		go func() { _ = e.call(func() { <-release }) }()
		synctest.Wait()
		sendChunks(t, p, ca)
		if _, err := p.SendRaw(ctxT(t), cb[0].Meta, cb[0].Payload); err != nil {
			t.Fatal(err)
		}
		got := make(chan *Message, 1)
		go func() { got <- recv(t, out) }()
		synctest.Wait() // the receiver waits, the events are queued
		close(release)
		sameBytes(t, (<-got).Payload, pa)
		for _, c := range cb[1:] {
			if _, err := p.SendRaw(ctxT(t), c.Meta, c.Payload); err != nil {
				t.Fatal(err)
			}
		}
		sameBytes(t, recv(t, out).Payload, pb)
		if waiting != 0 {
			t.Errorf("b's buffer was allocated with %d completed message(s) still queued for a waiting receiver", waiting)
		}
	})
}

func TestNeedsCollection(t *testing.T) {
	const n = 64 << 20
	for _, tc := range []struct {
		name   string
		n      int
		handed int64
		st     heapState
		want   bool
	}{
		{"dropped payloads, no free memory, little to mark", n, n, heapState{free: 0, scan: 2 << 20}, true},
		{"below collectFrom", collectFrom - 1, n, heapState{}, false},
		{"less handed out than needed", n, n - 1, heapState{}, false},
		{"the heap has the memory free", n, 3 * n, heapState{free: n}, false},
		{"more to mark than was handed out", n, n, heapState{scan: n + 1}, false},
		{"more to mark than scanPerBuffer buffers", n, 10 * n, heapState{scan: scanPerBuffer*n + 1}, false},
		{"at the bounds", n, scanPerBuffer * n, heapState{free: n - 1, scan: scanPerBuffer * n}, true},
	} {
		if got := needsCollection(tc.n, tc.handed, tc.st); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A large buffer is preceded by one collection when the payloads handed
// out since the last one could free it, and not again until as much more
// has been handed out; reading the runtime's real figures works.
func TestCollectionBeforeLargeBuffer(t *testing.T) {
	const n = collectFrom
	r := &reassembly{heap: func() heapState { return heapState{scan: 1 << 20} }}
	collected := 0
	r.collect = func() { collected++ }
	chunked := func(size int) *Message {
		id := messageid.New(1, 1, -1, -1, 0)
		return &Message{ID: messageid.NewChunk(id, id), Payload: make([]byte, size)}
	}
	r.left(&Message{ID: messageid.New(1, 0, -1, -1, 0), Payload: make([]byte, 2*n)}) // not reassembled: not counted
	if b := r.newBuffer(n); len(b) != n || collected != 0 {
		t.Fatalf("len %d, %d collections; want %d, none (nothing reassembled left the engine)", len(b), collected, n)
	}
	r.left(chunked(n / 2))
	r.left(chunked(n / 2))
	r.newBuffer(n)
	r.newBuffer(n)
	if collected != 1 || r.handed != 0 {
		t.Fatalf("%d collections, %d bytes counted; want 1, 0", collected, r.handed)
	}
	if st := (&reassembly{}).readHeap(); st.scan == 0 || st.scan >= 1<<62 {
		t.Errorf("runtime figures not read: %+v", st)
	}
}

// A young process's heap holds the garbage of what it read before a large
// message (W5: 10,000 small messages, 9.1 MB scannable, then an 8 MiB
// chunked message sought and read again): more to mark than one 8 MiB
// buffer, far less than the payloads it hands out. The collection comes
// once the payloads handed out since outweigh what it marks, so that the
// next buffers take their pages rather than new memory until the runtime
// collects on its own (which, with the heap's goal raised by large live
// data, was 4 to 5 buffers later, each 2-5x slower than reused memory).
func TestCollectionOnceHandedOutweighsScan(t *testing.T) {
	const n = 8 << 20
	st := heapState{scan: n + n/8} // no memory free
	r := &reassembly{heap: func() heapState { return st }}
	r.collect = func() { st.free = 4 * n }
	chunked := func() *Message {
		id := messageid.New(1, 1, -1, -1, 0)
		return &Message{ID: messageid.NewChunk(id, id), Payload: make([]byte, n)}
	}
	r.newBuffer(n) // the first message: nothing handed out yet
	r.left(chunked())
	r.newBuffer(n) // one payload handed out: less than the heap's scannable bytes
	if r.collections != 0 {
		t.Fatalf("%d collections with %d bytes handed out and %d to mark; want none", r.collections, n, st.scan)
	}
	r.left(chunked())
	r.newBuffer(n)
	if r.collections != 1 {
		t.Fatalf("%d collections with %d bytes handed out and %d to mark; want 1", r.collections, 2*n, st.scan)
	}
	r.left(chunked())
	r.newBuffer(n) // the memory it freed serves the next buffers
	if r.collections != 1 {
		t.Errorf("%d collections with the heap's memory free; want 1", r.collections)
	}
}

// Where each buffer is about as large as the rest of the live heap, the
// runtime follows every collection of the engine with one of its own
// before the next buffer (the goal the engine's collection set leaves no
// room for the buffer), and the engine's collections only double the
// runtime's: after followedLimit of them in a row the engine stops
// (BenchmarkReceiveChunked64MiB: two collections per message, one waited
// for in the loop, until it did). Where the runtime does not collect in
// between (W5: a goal raised by large live data), the engine goes on, and
// one collection the runtime does not follow starts the count again.
func TestCollectionStopsWhenTheRuntimeFollowsEach(t *testing.T) {
	const n = collectFrom
	chunked := func() *Message {
		id := messageid.New(1, 1, -1, -1, 0)
		return &Message{ID: messageid.NewChunk(id, id), Payload: make([]byte, n)}
	}
	// receive hands out a message and asks for the next buffer; the
	// runtime collects on its own after the buffer when follows says so.
	receive := func(r *reassembly, st *heapState, follows bool) {
		r.left(chunked())
		r.newBuffer(n)
		if follows {
			st.auto++
		}
	}

	st := heapState{scan: 1 << 20} // never any memory free
	r := &reassembly{heap: func() heapState { return st }}
	r.collect = func() {}
	for range 3 * followedLimit {
		receive(r, &st, false)
	}
	if r.collections != 3*followedLimit || r.settled {
		t.Fatalf("%d collections (settled %v) of %d buffers the runtime never collected between; want all",
			r.collections, r.settled, 3*followedLimit)
	}

	st = heapState{scan: 1 << 20}
	r = &reassembly{heap: func() heapState { return st }}
	r.collect = func() {}
	receive(r, &st, false) // nothing handed out before: no collection
	for range followedLimit - 1 {
		receive(r, &st, true)
	}
	receive(r, &st, false) // one the runtime did not follow: the count starts again
	for range followedLimit + 5 {
		receive(r, &st, true)
	}
	if want := 2*followedLimit + 1; r.collections != want || !r.settled {
		t.Errorf("%d collections (settled %v); want %d, then none: %d in a row were followed by the runtime's own",
			r.collections, r.settled, want, followedLimit)
	}
}
