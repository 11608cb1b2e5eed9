package producer

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/messageid"
)

// waitMemory is a Memory whose Reserve waits for room; it records the
// highest balance it reached.
type waitMemory struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	peak    int64
	changed chan struct{}
}

func newWaitMemory(limit int64) *waitMemory {
	return &waitMemory{limit: limit, changed: make(chan struct{})}
}

func (m *waitMemory) Reserve(ctx context.Context, n int64) error {
	for {
		if m.TryReserve(n) {
			return nil
		}
		m.mu.Lock()
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (m *waitMemory) TryReserve(n int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used+n > m.limit {
		return false
	}
	m.used += n
	m.peak = max(m.peak, m.used)
	return true
}

func (m *waitMemory) Add(n int64) {
	m.mu.Lock()
	m.used += n
	m.peak = max(m.peak, m.used)
	m.mu.Unlock()
}

func (m *waitMemory) Release(n int64) {
	m.mu.Lock()
	m.used -= n
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

func (m *waitMemory) Limit() int64 { return m.limit }

func (m *waitMemory) balance() (used, peak int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used, m.peak
}

// TestFedMessageLargerThanMemoryLimit: a chunked message four times the
// memory limit goes through, its chunks handed to the connection only as
// receipts free room; a message sent meanwhile waits behind it and is
// written after its last chunk; the balance never passes the limit and
// ends at 0.
func TestFedMessageLargerThanMemoryLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		mem := newWaitMemory(2000)
		p := newTestProducer(t, fc, clk, Options{Memory: mem, DisableBatching: true, EnableChunking: true, SendTimeout: -1})
		payload := bytes.Repeat([]byte("0123456789"), 800) // 8000 bytes: 9 chunks
		cb, ch := collect()
		sent := make(chan struct{})
		go func() {
			p.SendAsync(context.Background(), &Message{Payload: payload}, cb)
			close(sent)
		}()
		synctest.Wait()
		first := fc.take()
		if len(first) != 2 {
			t.Fatalf("%d chunks written before any receipt, want the 2 that fit in 2000 bytes", len(first))
		}
		if st := p.Stats(); st.PendingChunks != 9 || st.PendingBytes != int64(len(first[0].payload)+len(first[1].payload)) {
			t.Errorf("stats before receipts %+v", st)
		}
		cb2, ch2 := collect()
		go p.SendAsync(context.Background(), &Message{Payload: []byte("after")}, cb2)
		frames, chunks, entry := first, 0, uint64(10)
		for len(frames) > 0 {
			for _, f := range frames {
				if f.send.GetSequenceId() == 1 && chunks != 9 {
					t.Fatalf("the next message was written after %d of 9 chunks", chunks)
				}
				if f.send.GetSequenceId() == 0 {
					chunks++
				}
				fc.receipt(f.send.GetSequenceId(), entry)
				entry++
			}
			synctest.Wait()
			frames = fc.take()
		}
		<-sent
		r := wait(t, ch)
		cid, ok := r.id.(messageid.ChunkMessageID)
		if r.err != nil || !ok || cid.FirstChunkID().EntryID() != 10 || cid.LastChunkID().EntryID() != 18 {
			t.Fatalf("result %v %v", r.id, r.err)
		}
		if r2 := wait(t, ch2); r2.err != nil || r2.id.EntryID() != 19 {
			t.Fatalf("next message: %v %v", r2.id, r2.err)
		}
		if st := p.Stats(); st.PendingChunks != 0 || st.ChunksSent != 9 || st.PendingBytes != 0 {
			t.Errorf("stats after receipts %+v", st)
		}
		if used, peak := mem.balance(); used != 0 || peak > 2000 || peak < 1500 {
			t.Errorf("memory balance %d, peak %d: want 0 and at most the limit of 2000", used, peak)
		}
	})
}

// TestFedMessageAbortsWhenContextEnds: a fed message whose sender's
// context ends while a chunk waits for room fails, saying how far it got;
// its memory is given back and the producer goes on.
func TestFedMessageAbortsWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		mem := newWaitMemory(2000)
		p := newTestProducer(t, fc, clk, Options{Memory: mem, DisableBatching: true, EnableChunking: true, SendTimeout: -1})
		ctx, cancel := context.WithCancel(context.Background())
		cb, ch := collect()
		go p.SendAsync(ctx, &Message{Payload: make([]byte, 8000)}, cb)
		synctest.Wait()
		if n := len(fc.take()); n != 2 {
			t.Fatalf("%d chunks written", n)
		}
		cancel()
		r := wait(t, ch)
		if !errors.Is(r.err, api.ErrContextExpired) || !strings.Contains(r.err.Error(), "aborted after 2 of 9 chunks") {
			t.Fatalf("err = %v", r.err)
		}
		if used, _ := mem.balance(); used != 0 {
			t.Errorf("memory in use after the abort: %d", used)
		}
		if st := p.Stats(); st.PendingChunks != 0 || st.PendingBytes != 0 || st.PendingMessages != 0 {
			t.Errorf("stats after the abort %+v", st)
		}
		fc.receipt(0, 1) // late receipts of the aborted message are ignored
		cb2, ch2 := collect()
		p.SendAsync(context.Background(), &Message{Payload: []byte("next")}, cb2)
		fc.receipt(0, 2)
		fc.receipt(1, 3)
		if r := wait(t, ch2); r.err != nil || r.id.EntryID() != 3 {
			t.Fatalf("next: %v %v", r.id, r.err)
		}
	})
}

// TestFedMessageDisableBlock: with DisableBlockIfQueueFull a fed message
// whose first chunk does not fit fails with ErrMemoryBufferIsFull; one
// that started waits for its own receipts instead of failing half-sent.
func TestFedMessageDisableBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		mem := newWaitMemory(2000)
		p := newTestProducer(t, fc, clk, Options{Memory: mem, DisableBatching: true, EnableChunking: true,
			DisableBlockIfQueueFull: true, SendTimeout: -1})
		mem.Add(1500) // held by someone else
		cb, ch := collect()
		p.SendAsync(context.Background(), &Message{Payload: make([]byte, 3000)}, cb)
		if r := wait(t, ch); !errors.Is(r.err, api.ErrMemoryBufferIsFull) {
			t.Fatalf("err = %v", r.err)
		}
		mem.Release(1500)
		cb, ch = collect()
		go p.SendAsync(context.Background(), &Message{Payload: make([]byte, 3000)}, cb)
		for i := uint64(0); i < 4; i++ {
			synctest.Wait()
			for range fc.take() {
				fc.receipt(1, 10+i)
			}
		}
		if r := wait(t, ch); r.err != nil {
			t.Fatalf("err = %v", r.err)
		}
	})
}

// TestFedMessageSendTimeoutPerChunk: the send timeout of a chunked message
// runs from its last chunk receipt: a message whose chunks are each
// acknowledged within the timeout succeeds although the whole took longer;
// one whose receipts stop fails.
func TestFedMessageSendTimeoutPerChunk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		mem := newWaitMemory(2000)
		p := newTestProducer(t, fc, clk, Options{Memory: mem, DisableBatching: true, EnableChunking: true, SendTimeout: time.Second})
		cb, ch := collect()
		go p.SendAsync(context.Background(), &Message{Payload: make([]byte, 8000)}, cb)
		written := 0
		for acked := range 9 {
			synctest.Wait()
			written += len(fc.take())
			if written <= acked {
				t.Fatalf("%d chunks written, %d acknowledged", written, acked)
			}
			clk.Advance(900 * time.Millisecond)
			fc.receipt(0, uint64(acked))
		}
		if r := wait(t, ch); r.err != nil {
			t.Fatalf("chunked message acknowledged chunk by chunk within the timeout: %v", r.err)
		}
		cb, ch = collect()
		go p.SendAsync(context.Background(), &Message{Payload: make([]byte, 8000)}, cb)
		synctest.Wait()
		fc.receipt(1, 100)
		clk.Advance(999 * time.Millisecond)
		synctest.Wait()
		select {
		case r := <-ch:
			t.Fatalf("failed early: %v", r.err)
		default:
		}
		clk.Advance(time.Millisecond)
		if r := wait(t, ch); !errors.Is(r.err, api.ErrSendTimeout) {
			t.Fatalf("err = %v", r.err)
		}
	})
}
