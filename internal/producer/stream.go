package producer

import (
	"context"
	"fmt"
	"io"
	"sync"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/messageid"
)

// StreamWindowChunks is how many chunks a streamed message (SendReader)
// holds at most, read and not yet acknowledged: enough to keep a
// connection busy while receipts come back, and what bounds the memory
// of a producer streaming a payload larger than memory. Its buffers are
// reused from one chunk to the next, so the heap stays near the window.
const StreamWindowChunks = 8

// stream is the payload of a streamed message: read chunk by chunk from r,
// each chunk held from its read until its receipt (a reconnect writes it
// again), and no longer.
type stream struct {
	r         io.Reader
	size      int
	chunkSize int
	uuid      string
	base      int      // chunk index of held[0]
	held      [][]byte // chunks read and not yet acknowledged, from base
	mem       Memory   // its own window when the client has no memory limit; nil: the producer's

	// free holds buffers of acknowledged chunks for the next reads: a
	// streamed message reuses the buffers of its chunks in flight rather
	// than leaving one garbage buffer per chunk, which would let the heap
	// grow to twice the chunks in flight before each collection.
	freeMu sync.Mutex
	free   [][]byte
}

// recycle keeps buf, a chunk acknowledged, for a later read.
func (s *stream) recycle(buf []byte) {
	if cap(buf) < s.chunkSize {
		return
	}
	s.freeMu.Lock()
	if len(s.free) < StreamWindowChunks {
		s.free = append(s.free, buf[:0])
	}
	s.freeMu.Unlock()
}

// chunk returns chunk i of e, which is held.
func (s *stream) chunk(e *entry, i int) chunk.Chunk {
	return chunk.Chunk{
		Header:  chunk.Header{UUID: s.uuid, ChunkID: int32(i), NumChunks: int32(e.chunks), TotalSize: int32(s.size)},
		Payload: s.held[i-s.base],
	}
}

// chunkLen is the payload size of chunk i.
func (s *stream) chunkLen(i int) int { return min(s.chunkSize, s.size-i*s.chunkSize) }

// chunk returns chunk i of e: a slice of its payload, or a streamed chunk
// held. Called with p.mu held.
func (e *entry) chunk(i int) chunk.Chunk {
	if e.stream != nil {
		return e.stream.chunk(e, i)
	}
	return e.plan.Chunk(i)
}

// chunkLen is the payload size of e's chunk i.
func (e *entry) chunkLen(i int) int {
	if e.stream != nil {
		return e.stream.chunkLen(i)
	}
	return len(e.plan.Chunk(i).Payload)
}

// memory is the budget e's chunks are counted against.
func (p *Producer) memory(e *entry) Memory {
	if e.stream != nil && e.stream.mem != nil {
		return e.stream.mem
	}
	return p.opts.Memory
}

// SendReader publishes one message of size bytes read from r and waits for
// the outcome, as SendVersioned (schemaVersion nil for none); m.Payload
// must be nil. A message larger than a frame is chunked (EnableChunking
// must be set) and read one chunk at a time, each chunk read once its
// bytes fit in a window of StreamWindowChunks chunks and in the memory
// limit, and
// released at its receipt: the producer holds the chunks in flight, never
// the whole payload. A streamed message is not compressed: chunk metadata
// carries the total (compressed) size, known only after the whole payload
// would have been read. r must yield size bytes; it is not read beyond
// them. When it fails or ends early, the message fails ("aborted after k
// of n chunks", wrapping r's error or io.ErrUnexpectedEOF); the chunks
// already stored are an incomplete chunked message, which consumers never
// deliver (they drop or redeliver it by their incomplete-chunk policy).
// A read blocked in r is not interrupted by ctx. done, when not nil, is
// called with the outcome too, as SendVersionedNotify's.
func (p *Producer) SendReader(ctx context.Context, m *Message, schemaVersion []byte, r io.Reader, size int64, done Callback) (messageid.MessageID, error) {
	type result struct {
		id  messageid.MessageID
		err error
	}
	ch := make(chan result, 1)
	cb := func(id messageid.MessageID, err error) {
		if done != nil {
			done(id, err)
		}
		ch <- result{id, err}
	}
	if err := p.sendStream(ctx, m, schemaVersion, r, size, cb); err != nil {
		p.stats.failed.Add(1)
		p.metricFailed(1, err)
		cb(nil, err)
	}
	select {
	case r := <-ch:
		return r.id, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// sendStream queues a streamed message and feeds it; errors before it is
// queued are returned, later ones go to cb.
func (p *Producer) sendStream(ctx context.Context, m *Message, schemaVersion []byte, r io.Reader, size int64, cb Callback) error {
	switch {
	case m == nil || r == nil:
		return fmt.Errorf("%w: nil message or reader", api.ErrInvalidOptions)
	case m.Payload != nil:
		return fmt.Errorf("%w: a streamed message's payload comes from its reader: Payload must be nil", api.ErrInvalidOptions)
	case size < 0:
		return fmt.Errorf("%w: negative size %d", api.ErrInvalidOptions, size)
	case size > chunk.MaxTotalSize:
		return fmt.Errorf("%w: %d bytes, at most %d can be sent", api.ErrMessageTooLarge, size, chunk.MaxTotalSize)
	}
	n := int(size)
	p.mu.Lock()
	limit, maxMsg := p.frameLimit(), p.maxMsg
	p.mu.Unlock()
	if n <= limit {
		// One frame: read it whole (at most the broker's max message size).
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("message not sent: reading its payload: %w", eofUnexpected(err))
		}
		mm := *m
		mm.Payload = buf
		if err := p.sendAsync(ctx, &mm, schemaVersion, pending{cb: cb}, true); err != nil {
			return err
		}
		return nil
	}
	if !p.opts.EnableChunking {
		return tooLargeForBroker(n, maxMsg)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", api.ErrContextExpired, err)
	}

	if err := p.admitFed(ctx); err != nil {
		return err
	}
	defer p.gate.unlock()

	now := p.opts.Clock.Now()
	p.mu.Lock()
	if p.state != stateOpen {
		p.mu.Unlock()
		p.release(1, 0)
		return api.ErrProducerClosed
	}
	p.flushBatches() // keep send order
	seq := p.assignSeq(m)
	md := p.entryMetadata(m, seq, now, n)
	md.Compression = nil // streamed messages are not compressed
	md.SchemaVersion = schemaVersion
	e := &entry{seq: seq, highest: seq, msgs: []pending{{cb: cb, size: n, at: p.metricsNow()}},
		meta: md, txn: txnOf(m), perChunk: true}
	if p.opts.SendTimeout > 0 {
		e.deadline = now.Add(p.opts.SendTimeout)
	}
	setMetaTxn(md, e.txn)
	uuid := chunk.UUID(p.name, seq)
	chunkSize := p.maxMsg - gproto.Size(md) - chunk.MetadataOverhead(uuid) - p.encryptionOverhead()
	if p.opts.ChunkMaxSize > 0 {
		chunkSize = min(chunkSize, p.opts.ChunkMaxSize)
	}
	if chunkSize <= 0 {
		p.mu.Unlock()
		p.release(1, 0)
		return fmt.Errorf("%w: metadata of %d bytes leaves no room for a chunk in %d", api.ErrMessageTooLarge, gproto.Size(md), p.maxMsg)
	}
	s := &stream{r: r, size: n, chunkSize: chunkSize, uuid: uuid}
	// The chunks in flight are bounded by a window of StreamWindowChunks,
	// and counted against the client's memory limit too when it has one.
	window := newBudget(max(int64(StreamWindowChunks)*int64(chunkSize), 1))
	if lim := p.opts.Memory.Limit(); lim <= 0 {
		s.mem = window
	} else if int64(chunkSize) > lim {
		p.mu.Unlock()
		p.release(1, 0)
		return api.Detailed(api.ErrMessageTooLarge,
			"chunks of %d bytes exceed the client's memory limit of %d bytes: raise ClientOptions.MemoryLimitBytes or lower ProducerOptions.ChunkMaxMessageSize",
			chunkSize, lim)
	} else {
		s.mem = both{window, p.opts.Memory}
	}
	e.stream, e.chunks = s, chunk.NumChunks(n, chunkSize)
	p.enqueue(e)
	p.mu.Unlock()
	p.feed(ctx, e)
	return nil
}

// read reads chunk i of e from its reader into a new buffer of size
// bytes, reserved already. Called without p.mu.
func (s *stream) read(size int) ([]byte, error) {
	var buf []byte
	s.freeMu.Lock()
	if n := len(s.free); n > 0 {
		buf = s.free[n-1][:size]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
	}
	s.freeMu.Unlock()
	if buf == nil {
		buf = make([]byte, size, max(size, s.chunkSize))
	}
	if _, err := io.ReadFull(s.r, buf); err != nil {
		return nil, eofUnexpected(err)
	}
	return buf, nil
}

// eofUnexpected is err, with io.EOF (nothing read) as io.ErrUnexpectedEOF:
// the payload ended before its size.
func eofUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// budget is a Memory of its own: a streamed message's window when the
// client has no memory limit.
type budget struct {
	limit   int64
	mu      sync.Mutex
	used    int64
	changed chan struct{}
}

func newBudget(limit int64) *budget { return &budget{limit: limit, changed: make(chan struct{})} }

func (b *budget) Reserve(ctx context.Context, n int64) error {
	for {
		if b.TryReserve(n) {
			return nil
		}
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *budget) TryReserve(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit && b.used > 0 {
		return false
	}
	b.used += n
	return true
}

func (b *budget) Add(n int64) { b.mu.Lock(); b.used += n; b.mu.Unlock() }

func (b *budget) Release(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

func (b *budget) Limit() int64 { return b.limit }

// both is a Memory that reserves in two: a streamed message's window and
// the client's memory limit.
type both [2]Memory

func (m both) Reserve(ctx context.Context, n int64) error {
	if err := m[0].Reserve(ctx, n); err != nil {
		return err
	}
	if err := m[1].Reserve(ctx, n); err != nil {
		m[0].Release(n)
		return err
	}
	return nil
}

func (m both) TryReserve(n int64) bool {
	if !m[0].TryReserve(n) {
		return false
	}
	if !m[1].TryReserve(n) {
		m[0].Release(n)
		return false
	}
	return true
}

func (m both) Add(n int64)     { m[0].Add(n); m[1].Add(n) }
func (m both) Release(n int64) { m[0].Release(n); m[1].Release(n) }
func (m both) Limit() int64    { return min(m[0].Limit(), m[1].Limit()) }
