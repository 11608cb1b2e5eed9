package producer

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// fakeClock is the shared fake clock: Advance runs due timers in order on
// the caller's goroutine.
type fakeClock = clock.Fake

func newFakeClock() *fakeClock { return clock.NewFake(time.Unix(1_700_000_000, 0)) }

// sent is one frame the fake connection was given.
type sent struct {
	send    *proto.CommandSend
	meta    *proto.MessageMetadata
	payload []byte
}

// fakeConn answers PRODUCER and CLOSE_PRODUCER and records SEND frames.
type fakeConn struct {
	maxMsg int

	mu      sync.Mutex
	frames  []sent
	h       conn.ProducerHandler
	closed  bool
	epochs  []uint64
	names   []string
	refuse  error // answer to PRODUCER
	onFrame func(sent)
}

func (c *fakeConn) NewRequestID() uint64 { return 1 }

func (c *fakeConn) Request(_ context.Context, rid uint64, cmd *proto.BaseCommand) (*proto.BaseCommand, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch cmd.GetType() {
	case proto.BaseCommand_PRODUCER:
		if c.refuse != nil {
			return nil, c.refuse
		}
		c.epochs = append(c.epochs, cmd.GetProducer().GetEpoch())
		c.names = append(c.names, cmd.GetProducer().GetProducerName())
		return &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER_SUCCESS.Enum(), ProducerSuccess: &proto.CommandProducerSuccess{
			RequestId: &rid, ProducerName: gproto.String("fake-1"), LastSequenceId: gproto.Int64(-1)}}, nil
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_SUCCESS.Enum(), Success: &proto.CommandSuccess{RequestId: &rid}}, nil
}

func (c *fakeConn) Send(*proto.BaseCommand) error { return nil }

func (c *fakeConn) SendPayload(cmd *proto.BaseCommand, meta *proto.MessageMetadata, payload []byte) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return conn.ErrClosed
	}
	s := sent{send: gproto.CloneOf(cmd.GetSend()), meta: gproto.CloneOf(meta), payload: payload}
	c.frames = append(c.frames, s)
	f := c.onFrame
	c.mu.Unlock()
	if f != nil {
		f(s)
	}
	return nil
}

func (c *fakeConn) RegisterProducer(_ uint64, h conn.ProducerHandler) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.h = h
	return !c.closed
}

func (c *fakeConn) UnregisterProducer(uint64) {}
func (c *fakeConn) MaxMessageSize() int       { return c.maxMsg }
func (c *fakeConn) Close()                    {}

// take returns and forgets the recorded frames.
func (c *fakeConn) take() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.frames
	c.frames = nil
	return out
}

func (c *fakeConn) handler() conn.ProducerHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h
}

// receipt acknowledges seq as entry `entry` of ledger 1.
func (c *fakeConn) receipt(seq uint64, entry uint64) {
	c.handler().Receipt(&proto.CommandSendReceipt{ProducerId: gproto.Uint64(1), SequenceId: &seq,
		MessageId: &proto.MessageIdData{LedgerId: gproto.Uint64(1), EntryId: &entry}})
}

// countingMemory is a Memory with a limit that records its balance.
type countingMemory struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

func (m *countingMemory) Reserve(context.Context, int64) error { panic("not used") }
func (m *countingMemory) TryReserve(n int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used+n > m.limit {
		return false
	}
	m.used += n
	return true
}
func (m *countingMemory) Add(n int64)     { m.mu.Lock(); m.used += n; m.mu.Unlock() }
func (m *countingMemory) Release(n int64) { m.mu.Lock(); m.used -= n; m.mu.Unlock() }
func (m *countingMemory) Limit() int64    { return m.limit }
func (m *countingMemory) inUse() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

func newTestProducer(t *testing.T, fc *fakeConn, clk *fakeClock, opts Options) *Producer {
	t.Helper()
	opts.Topic, opts.ProducerID = "persistent://public/default/t", 1
	opts.Connect = func(context.Context) (Conn, error) { return fc, nil }
	opts.Clock = clk
	p, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		p.Close(ctx)
	})
	return p
}

// result collects one callback.
type result struct {
	id  messageid.MessageID
	err error
}

func collect() (Callback, chan result) {
	ch := make(chan result, 1)
	return func(id messageid.MessageID, err error) { ch <- result{id, err} }, ch
}

func wait(t *testing.T, ch chan result) result {
	t.Helper()
	synctest.Wait() // the bubble is idle: the callback ran, or never will
	select {
	case r := <-ch:
		return r
	default:
		t.Fatal("no callback")
		return result{}
	}
}

func TestChunkedSendAndReceipts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		mem := &countingMemory{limit: 1 << 20}
		p := newTestProducer(t, fc, clk, Options{Memory: mem, DisableBatching: true, EnableChunking: true})
		if p.Name() != "fake-1" {
			t.Errorf("name %q", p.Name())
		}
		payload := bytes.Repeat([]byte("0123456789"), 450) // 4500 bytes
		cb, ch := collect()
		p.SendAsync(context.Background(), &Message{Payload: payload, Key: "k"}, cb)
		frames := fc.take()
		if len(frames) != 5 {
			t.Fatalf("%d frames, want 5 chunks", len(frames))
		}
		var joined []byte
		for i, f := range frames {
			md := f.meta
			if !f.send.GetIsChunk() || f.send.GetSequenceId() != 0 || md.GetChunkId() != int32(i) || md.GetNumChunksFromMsg() != 5 ||
				md.GetTotalChunkMsgSize() != 4500 || md.GetUuid() != "fake-1-0" || md.GetUncompressedSize() != 4500 || md.GetPartitionKey() != "k" {
				t.Errorf("chunk %d: send %v meta %v", i, f.send, md)
			}
			if gproto.Size(md)+len(f.payload) > 1000 {
				t.Errorf("chunk %d: %d bytes of metadata and payload exceed 1000", i, gproto.Size(md)+len(f.payload))
			}
			if &f.payload[0] != &payload[len(joined)] {
				t.Errorf("chunk %d is a copy, not a slice of the payload", i)
			}
			joined = append(joined, f.payload...)
		}
		if !bytes.Equal(joined, payload) {
			t.Fatal("chunks do not add up to the payload")
		}
		if mem.inUse() != 4500 {
			t.Errorf("memory %d", mem.inUse())
		}
		for i := range 5 {
			fc.receipt(0, uint64(10+i))
		}
		r := wait(t, ch)
		cid, ok := r.id.(messageid.ChunkMessageID)
		if r.err != nil || !ok || cid.FirstChunkID().EntryID() != 10 || cid.LastChunkID().EntryID() != 14 {
			t.Fatalf("result %v %v", r.id, r.err)
		}
		if mem.inUse() != 0 || p.Stats().ChunksSent != 5 || p.LastSequenceID() != 0 {
			t.Errorf("memory %d stats %+v", mem.inUse(), p.Stats())
		}
	})
}

func TestTimeoutMidMessageWithFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{DisableBatching: true, EnableChunking: true, SendTimeout: time.Second})
		cb, ch := collect()
		p.SendAsync(context.Background(), &Message{Payload: make([]byte, 3000)}, cb)
		fc.take()
		fc.receipt(0, 1)
		clk.Advance(999 * time.Millisecond)
		synctest.Wait() // the bubble is idle: a timeout due now would have failed the message
		select {
		case r := <-ch:
			t.Fatalf("failed early: %v", r.err)
		default:
		}
		clk.Advance(time.Millisecond)
		if r := wait(t, ch); !errors.Is(r.err, api.ErrSendTimeout) {
			t.Fatalf("err = %v", r.err)
		}
		// Late receipts of the failed message are ignored; the next one works.
		fc.receipt(0, 2)
		cb2, ch2 := collect()
		p.SendAsync(context.Background(), &Message{Payload: []byte("next")}, cb2)
		fc.receipt(0, 3) // stale: sequence 0 < 1
		fc.receipt(1, 4)
		if r := wait(t, ch2); r.err != nil || r.id.EntryID() != 4 {
			t.Fatalf("next: %v %v", r.id, r.err)
		}
		if st := p.Stats(); st.Errors != 1 || st.MessagesSent != 1 || st.PendingMessages != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

func TestBatchDelayWithFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1 << 20}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{BatchMaxDelay: 50 * time.Millisecond, Compression: compress.ZSTD})
		var chs []chan result
		for i := range 3 {
			cb, ch := collect()
			chs = append(chs, ch)
			p.SendAsync(context.Background(), &Message{Payload: bytes.Repeat([]byte{byte('a' + i)}, 100), Properties: map[string]string{"i": "x"}}, cb)
		}
		if n := len(fc.take()); n != 0 {
			t.Fatalf("%d frames before the delay", n)
		}
		clk.Advance(50 * time.Millisecond)
		frames := fc.take()
		if len(frames) != 1 {
			t.Fatalf("%d frames after the delay", len(frames))
		}
		f := frames[0]
		if f.send.GetNumMessages() != 3 || f.send.GetHighestSequenceId() != 2 || f.meta.GetNumMessagesInBatch() != 3 ||
			f.meta.GetCompression() != proto.CompressionType_ZSTD {
			t.Fatalf("batch frame %v %v", f.send, f.meta)
		}
		codec, _ := compress.Lookup(compress.ZSTD)
		plain, err := codec.Decompress(nil, f.payload, int(f.meta.GetUncompressedSize()))
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := wire.DecodeBatch(plain, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range msgs {
			if m.Meta.GetSequenceId() != uint64(i) || len(m.Body) != 100 || m.Body[0] != byte('a'+i) || m.Meta.GetProperties()[0].GetKey() != "i" {
				t.Errorf("message %d: %v", i, m.Meta)
			}
		}
		fc.receipt(0, 7)
		for i, ch := range chs {
			r := wait(t, ch)
			if r.err != nil || r.id.BatchIdx() != int32(i) || r.id.BatchSize() != 3 || r.id.EntryID() != 7 {
				t.Errorf("message %d: %v %v", i, r.id, r.err)
			}
		}
		if p.LastSequenceID() != 2 {
			t.Errorf("LastSequenceID %d", p.LastSequenceID())
		}
	})
}

func TestResendAfterReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{DisableBatching: true, EnableChunking: true})
		cb1, ch1 := collect()
		cb2, ch2 := collect()
		p.SendAsync(context.Background(), &Message{Payload: make([]byte, 2500)}, cb1) // 3 chunks
		p.SendAsync(context.Background(), &Message{Payload: []byte("x")}, cb2)
		if n := len(fc.take()); n != 4 {
			t.Fatalf("%d frames", n)
		}
		fc.receipt(0, 1) // chunk 0 acknowledged
		resent := make(chan struct{})
		fc.mu.Lock()
		fc.onFrame = func(s sent) {
			if s.send.GetSequenceId() == 1 {
				close(resent)
			}
		}
		fc.mu.Unlock()
		fc.handler().Closed() // the broker closed the producer (unload)
		// The connect loop re-registers and resends chunks 1, 2 and message 1
		// (its backoff sleeps on the fake clock).
		for i := 0; ; i++ {
			synctest.Wait() // the connect loop is idle: waiting on the fake clock, or done
			select {
			case <-resent:
			default:
				if i == 100 {
					t.Fatal("no resend after 10s of backoff")
				}
				clk.Advance(100 * time.Millisecond)
				continue
			}
			break
		}
		frames := fc.take()
		if len(frames) != 3 || frames[0].meta.GetChunkId() != 1 || frames[1].meta.GetChunkId() != 2 || frames[2].send.GetSequenceId() != 1 {
			for _, f := range frames {
				t.Logf("frame seq %d chunk %d", f.send.GetSequenceId(), f.meta.GetChunkId())
			}
			t.Fatalf("resent %d frames", len(frames))
		}
		fc.mu.Lock()
		epochs, names := fc.epochs, fc.names
		fc.mu.Unlock()
		if len(epochs) != 2 || epochs[1] != 1 || names[1] != "fake-1" {
			t.Errorf("re-registration epochs %v names %v", epochs, names)
		}
		fc.receipt(0, 2)
		fc.receipt(0, 3)
		fc.receipt(1, 4)
		r := wait(t, ch1)
		if cid, ok := r.id.(messageid.ChunkMessageID); !ok || cid.FirstChunkID().EntryID() != 1 || cid.LastChunkID().EntryID() != 3 {
			t.Errorf("chunked id %v %v", r.id, r.err)
		}
		if r := wait(t, ch2); r.err != nil {
			t.Error(r.err)
		}
		if st := p.Stats(); st.Reconnects != 1 {
			t.Errorf("stats %+v", st)
		}
	})
}

func TestReceiptOutOfOrderClosesConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		closed := make(chan struct{}, 1)
		fc, clk := &fakeConn{maxMsg: 1000}, newFakeClock()
		p := newTestProducer(t, fc, clk, Options{DisableBatching: true})
		p.mu.Lock()
		p.conn = closerConn{fc, closed}
		p.mu.Unlock()
		p.SendAsync(context.Background(), &Message{Payload: []byte("a")}, func(messageid.MessageID, error) {})
		p.SendAsync(context.Background(), &Message{Payload: []byte("b")}, func(messageid.MessageID, error) {})
		fc.receipt(1, 1) // the receipt of 0 was lost
		synctest.Wait()
		select {
		case <-closed:
		default:
			t.Fatal("connection not closed")
		}
	})
}

type closerConn struct {
	*fakeConn
	closed chan struct{}
}

func (c closerConn) Close() { c.closed <- struct{}{} }

func TestMemoryAndLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc, clk := &fakeConn{maxMsg: 1 << 20}, newFakeClock()
		mem := &countingMemory{limit: 1000}
		p := newTestProducer(t, fc, clk, Options{Memory: mem, DisableBlockIfQueueFull: true, MaxPendingMessages: 3, BatchMaxDelay: time.Hour})
		cb, ch := collect()
		p.SendAsync(context.Background(), &Message{Payload: make([]byte, 2000)}, cb)
		if r := wait(t, ch); !errors.Is(r.err, api.ErrMessageTooLarge) {
			t.Errorf("over the limit: %v", r.err)
		}
		for range 3 {
			p.SendAsync(context.Background(), &Message{Payload: make([]byte, 100)}, func(messageid.MessageID, error) {})
		}
		cb, ch = collect()
		p.SendAsync(context.Background(), &Message{Payload: []byte("x")}, cb)
		if r := wait(t, ch); !errors.Is(r.err, api.ErrProducerQueueFull) {
			t.Errorf("fourth message: %v", r.err)
		}
		if st := p.Stats(); st.PendingMessages != 3 || st.PendingBytes != 300 || mem.inUse() != 300 {
			t.Errorf("stats %+v memory %d", st, mem.inUse())
		}
		// The batch holds its framing too once flushed.
		if err := p.Flush(ctxWithin(t, 10*time.Millisecond)); err == nil {
			t.Error("flush returned before the receipt")
		}
		if used := mem.inUse(); used <= 300 || used > 400 {
			t.Errorf("memory of the flushed batch: %d", used)
		}
		fc.receipt(0, 1)
		if err := p.Flush(ctxWithin(t, 5*time.Second)); err != nil {
			t.Fatal(err)
		}
		if mem.inUse() != 0 {
			t.Errorf("memory after receipt %d", mem.inUse())
		}
	})
}

func ctxWithin(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestCreateRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := &fakeConn{maxMsg: 1000, refuse: &conn.ServerError{Code: proto.ServerError_ProducerBusy, Message: "taken"}}
		_, err := New(context.Background(), Options{Topic: "t", ProducerID: 1, Clock: newFakeClock(),
			Connect: func(context.Context) (Conn, error) { return fc, nil }})
		var se *conn.ServerError
		if !errors.As(err, &se) || se.Code != proto.ServerError_ProducerBusy {
			t.Fatalf("err = %v", err)
		}
	})
}
