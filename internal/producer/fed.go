package producer

import (
	"context"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/internal/api"
)

// A chunked message that is not compressed is counted against the memory
// limit chunk by chunk: each chunk's bytes are reserved before the chunk is
// handed to the connection and released when its receipt comes back. Its
// chunks are slices of the caller's payload, so the memory the producer
// holds beyond that payload is the frames in flight, at most the limit. A
// message larger than the whole limit is sent this way too: the sender
// blocks while its chunks wait for room (the send timeout then runs from
// the last chunk receipt, see receiptLocked).
//
// The sending goroutine feeds the chunks (Send and SendAsync return once
// the last chunk is handed to the connection). While it does, it holds the
// producer's gate alone: the entries of the producer are acknowledged in
// order, so nothing may be queued behind a message not fully written.

// sendFed queues m, a chunked message of an uncompressed payload, and
// feeds its chunks to the connection as memory allows. Errors before the
// message is queued are returned; after that they fail the message.
func (p *Producer) sendFed(ctx context.Context, m *Message, schemaVersion []byte, pm pending, now, deadline time.Time) error {
	if err := p.admitFed(ctx); err != nil {
		return err
	}
	defer p.gate.unlock()

	n := len(m.Payload)
	p.mu.Lock()
	if p.state != stateOpen {
		p.mu.Unlock()
		p.release(1, 0)
		return api.ErrProducerClosed
	}
	p.flushBatches() // keep send order
	seq := p.assignSeq(m)
	md := p.entryMetadata(m, seq, now, n)
	md.SchemaVersion = schemaVersion
	e := &entry{seq: seq, highest: seq, msgs: []pending{withSize(pm, n, p.metricsNow())},
		meta: md, payload: m.Payload, deadline: deadline, txn: txnOf(m)}
	setMetaTxn(md, e.txn)
	if err := p.plan(e); err != nil {
		p.mu.Unlock()
		p.release(1, 0)
		return err
	}
	if e.chunks == 0 {
		// One frame after all (a reconnect raised the broker's limit):
		// counted whole, past the limit by less than a frame.
		p.opts.Memory.Add(int64(n))
		p.pendingChanged(0, int64(n))
		e.mem = int64(n)
	} else {
		if lim := p.opts.Memory.Limit(); lim > 0 && int64(len(e.plan.Chunk(0).Payload)) > lim {
			size := len(e.plan.Chunk(0).Payload)
			p.mu.Unlock()
			p.release(1, 0)
			return api.Detailed(api.ErrMessageTooLarge,
				"chunks of %d bytes exceed the client's memory limit of %d bytes: raise ClientOptions.MemoryLimitBytes or lower ProducerOptions.ChunkMaxMessageSize",
				size, lim)
		}
		e.fed, e.perChunk = 0, true
	}
	p.enqueue(e)
	p.mu.Unlock()
	if e.perChunk {
		p.feed(ctx, e)
	}
	return nil
}

// feed reserves memory for e's chunks one at a time and writes each when
// attached (a reconnect writes the fed ones again). It stops when every
// chunk is fed or e finished (acknowledged, or failed by the send timeout,
// a send error or Close); when ctx ends or the producer closes first it
// fails e. With DisableBlockIfQueueFull a first chunk that does not fit
// fails e with ErrMemoryBufferIsFull; the later ones wait for room, which
// the receipts of the earlier ones give back: a message is not cut short
// by the limit once it started.
func (p *Producer) feed(ctx context.Context, e *entry) {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(p.life, func() { cancel(api.ErrProducerClosed) })()
	p.mu.Lock()
	e.abort = cancel
	p.mu.Unlock()
	for {
		p.mu.Lock()
		if e.finished || e.fed == e.chunks {
			p.mu.Unlock()
			return
		}
		i := e.fed
		size := int64(e.chunkLen(i))
		p.mu.Unlock()

		mem := p.memory(e)
		if !mem.TryReserve(size) {
			if p.opts.DisableBlockIfQueueFull && i == 0 {
				p.abortFed(e, fmt.Errorf("%w: the first chunk of %d bytes does not fit in the client's memory limit of %d (ClientOptions.MemoryLimitBytes) now",
					api.ErrMemoryBufferIsFull, size, p.opts.Memory.Limit()))
				return
			}
			if err := mem.Reserve(wctx, size); err != nil {
				if ctx.Err() != nil {
					err = fmt.Errorf("%w: %w", api.ErrContextExpired, ctx.Err())
				} else if cause := context.Cause(wctx); cause != nil {
					err = cause
				}
				p.abortFed(e, fmt.Errorf("message aborted after %d of %d chunks: %w", i, e.chunks, err))
				return
			}
		}

		var buf []byte
		if e.stream != nil {
			var err error
			if buf, err = e.stream.read(int(size)); err != nil {
				mem.Release(size)
				p.abortFed(e, fmt.Errorf("message aborted after %d of %d chunks: reading its payload: %w", i, e.chunks, err))
				return
			}
		}

		p.mu.Lock()
		if e.finished {
			p.mu.Unlock()
			mem.Release(size)
			return
		}
		if e.stream != nil {
			e.stream.held = append(e.stream.held, buf)
		}
		e.fed++
		e.mem += size
		p.pendingChanged(0, size)
		if p.ready {
			p.writeDone(e, p.writeChunks(e, p.sendCommand(e)))
		}
		p.mu.Unlock()
	}
}

// abortFed fails e, whose feed stopped, unless it finished already. Its
// chunks already written are stored by the broker; consumers drop them as
// an incomplete chunked message.
func (p *Producer) abortFed(e *entry, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.finished {
		return
	}
	p.queue.remove(e)
	p.finish(e, nil, err)
	p.armTimeout()
}

// chunkReceipt releases the memory of e's chunk acknowledged last, when
// its memory is held chunk by chunk, and restarts e's send timeout: a
// chunked message fails when no chunk receipt came for SendTimeout, not
// when the whole message took longer. Called with p.mu held, after
// e.acked counted the receipt.
func (p *Producer) chunkReceipt(e *entry) {
	if e.perChunk && e.acked <= e.fed {
		size := int64(e.chunkLen(e.acked - 1))
		p.memory(e).Release(size)
		e.mem -= size
		p.pendingChanged(0, -size)
		if s := e.stream; s != nil {
			s.recycle(s.held[0])
			s.held[0] = nil
			s.held = s.held[1:]
			s.base++
		}
	}
	if !e.deadline.IsZero() && e.acked < e.chunks {
		e.deadline = p.opts.Clock.Now().Add(p.opts.SendTimeout)
	}
}

// admitFed takes, for a message fed chunk by chunk (sendFed, SendReader),
// the producer's gate and the message's pending permit. On success the
// caller holds the gate and unlocks it when the message is fed.
func (p *Producer) admitFed(ctx context.Context) error {
	wctx, stop := p.waitCtx(ctx)
	err := p.gate.lock(wctx)
	if err != nil {
		err = waitErr(ctx, wctx)
	}
	stop()
	if err != nil {
		return err
	}
	if err := p.waitRoom(ctx, 0, nil); err != nil { // the message's permit
		p.gate.unlock()
		return err
	}
	p.pendingChanged(1, 0)
	return nil
}
