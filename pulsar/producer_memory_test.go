package pulsar

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/wire"
)

// heapSampler samples the bytes of live and unswept heap objects
// (runtime/metrics) every millisecond until stopped, and keeps the peak.
type heapSampler struct {
	stop     chan struct{}
	done     sync.WaitGroup
	peak     uint64
	livePeak uint64 // of heapLive: the heap marked live by the last GC
}

const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	heapLive    = "/gc/heap/live:bytes"
)

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.done.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			h.peak = max(h.peak, readMetric(heapObjects))
			h.livePeak = max(h.livePeak, readMetric(heapLive))
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	})
	return h
}

func (h *heapSampler) finish() uint64 {
	close(h.stop)
	h.done.Wait()
	return h.peak
}

// TestProducerLargeSendMemory: a chunked Send of a payload 8 times
// MemoryLimitBytes succeeds, and the memory it costs beyond the caller's
// payload stays within the limit: the heap's peak during the send less
// the heap before it, and every byte it allocated, measured through
// runtime/metrics against a broker that discards payloads (so the heap
// holds only the client's bytes). PULSARGO_LARGE_SEND=<MiB> runs it with
// that payload and the default limit (the manual 1 GiB run of issue #33).
func TestProducerLargeSendMemory(t *testing.T) {
	size, limit := 64<<20, int64(8<<20)
	if mib, err := strconv.Atoi(os.Getenv("PULSARGO_LARGE_SEND")); err == nil && mib > 0 {
		size, limit = mib<<20, 0 // 0: the default limit
	}
	sink := sinkBroker{maxMessageSize: wire.DefaultMaxMessageSize}
	c, err := newClient(ClientOptions{URL: "pulsar://sink:6650", Dialer: sink.Dial, MemoryLimitBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	limit = c.mem.limit
	p, err := c.CreateProducer(ProducerOptions{Topic: "large-send", EnableChunking: true, DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	payload := payloadOf(size, 7)

	// Collect often, so that the heap peak is what is held, not garbage
	// the pacer lets pile up (other tests' live heap raises its goal).
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	before := readMetric(heapObjects)
	allocs := readMetric("/gc/heap/allocs:bytes")
	h := startHeapSampler()
	start := time.Now()
	id, err := p.Send(ctxFor(t, 2*time.Minute), &ProducerMessage{Payload: payload})
	took := time.Since(start)
	peak := h.finish()
	allocated := readMetric("/gc/heap/allocs:bytes") - allocs
	if err != nil {
		t.Fatalf("%d MiB chunked with a memory limit of %d MiB: %v", size>>20, limit>>20, err)
	}
	cid, ok := id.(ChunkMessageID)
	if !ok {
		t.Fatalf("id %T", id)
	}
	extra := int64(peak) - int64(before)
	t.Logf("%d MiB in %d chunks in %v (%.0f MiB/s); memory limit %d MiB; heap peak %+d KiB over the start; allocated %d KiB",
		size>>20, cid.LastChunkID().EntryID()-cid.FirstChunkID().EntryID()+1, took.Round(time.Millisecond),
		float64(size>>20)/took.Seconds(), limit>>20, extra>>10, allocated>>10)
	if extra > limit || int64(allocated) > limit {
		t.Errorf("extra memory beyond the payload: heap peak %d, allocated %d bytes; want at most the limit %d", extra, allocated, limit)
	}
	if used := c.mem.inUse(); used != 0 {
		t.Errorf("memory in use after the send: %d", used)
	}
	runtime.KeepAlive(payload)
}

// patternReader yields n bytes of a pattern without holding them.
type patternReader struct{ left int }

func (r *patternReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.left)
	for i := range p[:n] {
		p[i] = byte(r.left - i)
	}
	r.left -= n
	return n, nil
}

// TestProducerSendReaderMemory: SendReader of a payload 8 times
// MemoryLimitBytes, from a reader that holds none of it, keeps the heap
// (runtime/metrics, sampled) within what the chunks in flight explain,
// well under the payload: the producer never holds the payload.
// PULSARGO_LARGE_SEND=<MiB> runs it with that payload and the default
// limit.
func TestProducerSendReaderMemory(t *testing.T) {
	size, limit := 64<<20, int64(8<<20)
	if mib, err := strconv.Atoi(os.Getenv("PULSARGO_LARGE_SEND")); err == nil && mib > 0 {
		size, limit = mib<<20, 0
	}
	sink := sinkBroker{maxMessageSize: wire.DefaultMaxMessageSize}
	c, err := newClient(ClientOptions{URL: "pulsar://sink:6650", Dialer: sink.Dial, MemoryLimitBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	limit = c.mem.limit
	p, err := c.CreateProducer(ProducerOptions{Topic: "large-stream", EnableChunking: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	defer debug.SetGCPercent(debug.SetGCPercent(10)) // see TestProducerLargeSendMemory
	runtime.GC()
	before, liveBefore := readMetric(heapObjects), readMetric(heapLive)
	h := startHeapSampler()
	start := time.Now()
	id, err := p.SendReader(ctxFor(t, 2*time.Minute), &ProducerMessage{}, &patternReader{left: size}, int64(size))
	took := time.Since(start)
	peak := h.finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := id.(ChunkMessageID); !ok {
		t.Fatalf("id %T", id)
	}
	// Heap objects include garbage not yet collected: the collector (at
	// GOGC=10 here) lets the heap grow by a tenth of what is live, and at
	// least to its 4 MiB minimum, before it runs; what the send holds live
	// is at most the chunks in flight (the limit) and the one being read,
	// and a chunk allocated during a collection counts as live until the
	// next one (so the live heap metric is logged, not asserted).
	extra, live := int64(peak)-int64(before), int64(h.livePeak)-int64(liveBefore)
	t.Logf("streamed %d MiB in %v (%.0f MiB/s); memory limit %d MiB; heap objects peak %+d KiB, live heap peak %+d KiB over the start",
		size>>20, took.Round(time.Millisecond), float64(size>>20)/took.Seconds(), limit>>20, extra>>10, live>>10)
	if bound := 2*(limit+wire.DefaultMaxMessageSize) + int64(liveBefore)/10 + 4<<20; extra > bound || extra >= int64(size) {
		t.Errorf("heap peak %d bytes over the start: more than the chunks in flight explain (%d)", extra, bound)
	}
	if used := c.mem.inUse(); used != 0 {
		t.Errorf("memory in use after the send: %d", used)
	}
}

// TestProducerClosedIsReleased: once a producer and its client are closed,
// nothing keeps them reachable — not the send-timeout timer, which used to
// hold the engine (and through it the batch buffers of the topic, and the
// client) for SendTimeout (30 s) after Close, nor the batch timer: a
// program that opens a producer per task, or each run of pulsarbench's W1,
// kept every closed producer's window of batch buffers (10 MB at W1's
// MaxPendingMessages) alive meanwhile. A stopped timer is not enough: the
// runtime may keep a stopped timer's function until its due time.
func TestProducerClosedIsReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, Logger: csLogger()})
		var wp weak.Pointer[partitionedProducer]
		var wc weak.Pointer[client]
		func() {
			c, err := newClient(ClientOptions{URL: b.URL(), Dialer: b.Dial, Logger: clientLogger()})
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.CreateProducer(ProducerOptions{Topic: csTopic(), BatchingMaxPublishDelay: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			ctx := csCtx(t)
			for range 100 {
				p.SendAsync(ctx, &ProducerMessage{Payload: make([]byte, 1024)}, nil)
			}
			if err := p.FlushWithCtx(ctx); err != nil {
				t.Fatal(err)
			}
			// One more, left in an open batch: its batch timer (an hour)
			// is armed when the producer closes.
			p.SendAsync(ctx, &ProducerMessage{Payload: make([]byte, 1024)}, nil)
			wp, wc = weak.Make(p.(*partitionedProducer)), weak.Make(c)
			p.Close()
			c.Close()
		}()
		synctest.Wait() // the connection's goroutines have ended
		runtime.GC()
		if wp.Value() != nil || wc.Value() != nil {
			t.Fatalf("after Close and GC: producer reachable %v, client reachable %v", wp.Value() != nil, wc.Value() != nil)
		}
	})
}

// TestMemoryLimitConcurrent: the client's producer memory budget (reserved
// per message and released per receipt without a lock since issue #35)
// never holds more than its limit, wakes a reservation waiting for room
// when room is released, and ends at zero.
func TestMemoryLimitConcurrent(t *testing.T) {
	const limit, n = 1000, 300
	m := newMemoryLimit(limit)
	var wg sync.WaitGroup
	ctx := context.Background()
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				if i%2 == 0 && !m.tryReserve(n) {
					continue
				}
				if i%2 == 1 {
					if err := m.reserve(ctx, n); err != nil {
						t.Error(err)
						return
					}
				}
				if used := m.inUse(); used > limit {
					t.Errorf("goroutine %d: %d bytes reserved, more than the limit %d", g, used, limit)
				}
				m.release(n)
			}
		})
	}
	wg.Wait()
	if used := m.inUse(); used != 0 {
		t.Fatalf("%d bytes reserved after every release, want 0", used)
	}
	if err := m.reserve(ctx, limit+1); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("reserve beyond the limit: %v, want ErrMessageTooLarge", err)
	}
}
