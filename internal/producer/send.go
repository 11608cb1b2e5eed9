package producer

import (
	"context"
	"errors"
	"fmt"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// Send publishes m and waits for the outcome, or for ctx to end (the
// message may still be sent then). A batched m does not wait for
// BatchMaxDelay with the caller blocked: the batch it joins is sent at
// once, as the official client's Send does.
func (p *Producer) Send(ctx context.Context, m *Message) (messageid.MessageID, error) {
	return p.SendVersioned(ctx, m, nil)
}

// SendVersioned is Send of a message written with the schema version
// schemaVersion (nil for none): it goes into the entry's metadata, and a
// batch holds messages of one version only.
func (p *Producer) SendVersioned(ctx context.Context, m *Message, schemaVersion []byte) (messageid.MessageID, error) {
	type result struct {
		id  messageid.MessageID
		err error
	}
	ch := make(chan result, 1)
	p.send(ctx, m, schemaVersion, pending{cb: func(id messageid.MessageID, err error) { ch <- result{id, err} }}, true)
	select {
	case r := <-ch: // failed before it was queued (ctx may have ended too)
		return r.id, r.err
	default:
	}
	select {
	case r := <-ch:
		return r.id, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SendAsync publishes m and calls cb once with the outcome. The engine
// reads m during the call only, but keeps a reference to m.Payload (without
// compression it is sent from this very slice): the caller must not modify
// it until cb ran. It blocks while
// MaxPendingMessages or the memory limit is reached (unless
// DisableBlockIfQueueFull), at most until ctx ends or the send timeout
// passes; errors before the message is queued are given to cb before
// SendAsync returns. Callbacks run in completion order on one goroutine
// per producer.
func (p *Producer) SendAsync(ctx context.Context, m *Message, cb Callback) {
	p.send(ctx, m, nil, pending{cb: cb}, false)
}

// SendAsyncVersioned is SendAsync of a message written with the schema
// version schemaVersion (see SendVersioned).
func (p *Producer) SendAsyncVersioned(ctx context.Context, m *Message, schemaVersion []byte, cb Callback) {
	p.send(ctx, m, schemaVersion, pending{cb: cb}, false)
}

// SendAsyncReceipted is SendAsyncVersioned that also tells receipted the
// id when the broker acknowledged m, before cb runs (see Receipted).
func (p *Producer) SendAsyncReceipted(ctx context.Context, m *Message, schemaVersion []byte, receipted Receipted, cb Callback) {
	p.send(ctx, m, schemaVersion, pending{cb: cb, receipted: receipted}, false)
}

// SendAsyncDone is SendAsyncVersioned that gives the outcome to done with
// a and b (see Done): a send that allocates no callback.
func (p *Producer) SendAsyncDone(ctx context.Context, m *Message, schemaVersion []byte, done Done, a, b any) {
	p.send(ctx, m, schemaVersion, pending{done: done, a: a, b: b}, false)
}

// send is SendAsyncVersioned; flushNow sends m's batch at once.
func (p *Producer) send(ctx context.Context, m *Message, schemaVersion []byte, pm pending, flushNow bool) {
	if err := p.sendAsync(ctx, m, schemaVersion, pm, flushNow); err != nil {
		p.stats.failed.Add(1)
		p.metricFailed(1, err)
		pm.complete(p, nil, err)
	}
}

// sendAsync queues m; pm holds its callbacks (sizes are filled in here).
func (p *Producer) sendAsync(ctx context.Context, m *Message, schemaVersion []byte, pm pending, flushNow bool) error {
	if m == nil {
		return fmt.Errorf("%w: nil message", api.ErrInvalidOptions)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", api.ErrContextExpired, err)
	}
	n := len(m.Payload)
	at := sendTime{clock: p.opts.Clock}
	r, maxMsg := p.route(m, n)
	if r == routeClosed {
		return api.ErrProducerClosed
	}
	if n > chunk.MaxTotalSize {
		return fmt.Errorf("%w: %d bytes, at most %d can be sent", api.ErrMessageTooLarge, n, chunk.MaxTotalSize)
	}
	switch r {
	case routeFed:
		now := at.now()
		return p.sendFed(ctx, m, schemaVersion, pm, now, p.deadline(now))
	case routeTooLarge:
		return tooLargeForBroker(n, maxMsg)
	}
	if !p.gate.tryRLock() {
		at.now() // the wait counts against the send timeout
		wctx, stop := p.waitCtx(ctx)
		err := p.gate.rlock(wctx)
		if err != nil {
			err = waitErr(ctx, wctx)
		}
		stop()
		if err != nil {
			return err
		}
	}
	defer p.gate.runlock()
	mem := int64(n)
	if err := p.waitRoom(ctx, mem, &at); err != nil {
		return err
	}
	p.pendingChanged(1, mem)

	p.mu.Lock()
	if p.state == stateOpen && p.batchable(m, n) {
		err := p.addToBatch(m, schemaVersion, pm, mem, &at, flushNow)
		p.mu.Unlock()
		if err != nil {
			p.release(1, mem)
		}
		return err
	}
	p.mu.Unlock()

	// Sent on its own: compress the whole payload once, outside the lock.
	payload := m.Payload
	if p.opts.Compression != 0 {
		payload = p.codec.Compress(make([]byte, 0, p.codec.MaxCompressedSize(n)), m.Payload)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != stateOpen {
		p.release(1, mem)
		return api.ErrProducerClosed
	}
	p.flushBatches() // keep send order
	seq := p.assignSeq(m)
	now := at.now()
	md := p.entryMetadata(m, seq, now, n)
	md.SchemaVersion = schemaVersion
	e := &entry{seq: seq, highest: seq, msgs: []pending{withSize(pm, n, p.metricsNow())}, meta: md, payload: payload, mem: mem, deadline: p.deadline(now), txn: txnOf(m)}
	setMetaTxn(md, e.txn)
	if err := p.plan(e); err != nil {
		p.release(1, mem)
		return err
	}
	p.adjustMemory(e, int64(len(payload)))
	p.enqueue(e)
	return nil
}

// sendTime is when a send was called, read from the clock the first time
// it is needed: a message that joins an open batch without waiting needs
// no clock read (its batch's deadline is its first message's), one that
// opens a batch, is sent on its own or waits for room reads it once,
// before any wait, so that the send timeout counts the wait.
type sendTime struct {
	clock Clock
	t     time.Time
}

func (s *sendTime) now() time.Time {
	if s.t.IsZero() {
		s.t = s.clock.Now()
	}
	return s.t
}

// deadline is the send-timeout deadline of a message sent at now, zero
// without a send timeout.
func (p *Producer) deadline(now time.Time) time.Time {
	if p.opts.SendTimeout <= 0 {
		return time.Time{}
	}
	return now.Add(p.opts.SendTimeout)
}

// How sendAsync sends a message.
const (
	routeWhole    = iota // batched, or one entry counted whole against the memory limit
	routeFed             // chunked, its chunks counted as they are in flight (sendFed)
	routeTooLarge        // larger than the broker takes, and chunking is off
	routeClosed          // the producer is closing or closed
)

// route decides how a message m of n bytes is sent. A message the broker
// takes as one frame, or that goes to a batch, is sent whole; one larger
// than a frame is chunked when EnableChunking is set (and fed chunk by
// chunk when it is not compressed) and refused otherwise, as the official
// client refuses it. A compressed message is decided after compression
// (plan). It returns the broker's max message size too, and routeClosed
// once the producer no longer accepts messages.
func (p *Producer) route(m *Message, n int) (int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.state != stateOpen:
		return routeClosed, p.maxMsg
	case p.batchable(m, n) || n <= p.frameLimit() || p.opts.Compression != 0:
		return routeWhole, p.maxMsg
	case !p.opts.EnableChunking:
		return routeTooLarge, p.maxMsg
	}
	return routeFed, p.maxMsg
}

// frameLimit is the largest payload sent without chunking: the broker's
// max message size (less encryption overhead), and with EnableChunking at
// most ChunkMaxSize. Called with p.mu held.
func (p *Producer) frameLimit() int {
	limit := p.maxMsg - p.encryptionOverhead()
	if p.opts.EnableChunking && p.opts.ChunkMaxSize > 0 {
		limit = min(limit, p.opts.ChunkMaxSize)
	}
	return limit
}

// tooLargeForBroker is the error of a payload of n bytes (compressed, if
// the producer compresses) larger than the broker's max message size
// maxMsg with chunking off: the official client's ErrMessageTooLarge.
func tooLargeForBroker(n, maxMsg int) error {
	return fmt.Errorf("%w: %d bytes, more than the broker's max message size of %d (its maxMessageSize); set ProducerOptions.EnableChunking to send it in chunks",
		api.ErrMessageTooLarge, n, maxMsg)
}

// plan decides whether e is chunked and plans its chunks: a payload larger
// than frameLimit is chunked with EnableChunking and refused without. Every
// chunk may be written at once (fed) unless the caller feeds them. Called
// with p.mu held.
func (p *Producer) plan(e *entry) error {
	n := len(e.payload)
	limit := p.frameLimit()
	if n <= limit {
		return nil
	}
	if !p.opts.EnableChunking {
		return tooLargeForBroker(n, p.maxMsg)
	}
	custom := p.opts.ChunkMaxSize > 0
	uuid := chunk.UUID(p.name, e.seq)
	size := p.maxMsg - gproto.Size(e.meta) - chunk.MetadataOverhead(uuid) - p.encryptionOverhead()
	if custom {
		size = min(size, p.opts.ChunkMaxSize)
	}
	if size <= 0 {
		return fmt.Errorf("%w: metadata of %d bytes leaves no room for a chunk in %d", api.ErrMessageTooLarge,
			gproto.Size(e.meta), p.maxMsg)
	}
	plan, err := chunk.NewPlan(p.name, e.seq, e.payload, size)
	if err != nil {
		return fmt.Errorf("%w: %w", api.ErrMessageTooLarge, err)
	}
	e.plan, e.chunks, e.fed = plan, plan.Len(), plan.Len()
	return nil
}

// adjustMemory makes e's reservation the bytes it really holds: its
// (compressed) payload. Called with p.mu held.
func (p *Producer) adjustMemory(e *entry, held int64) {
	switch d := held - e.mem; {
	case d < 0:
		p.opts.Memory.Release(-d)
	case d > 0:
		p.opts.Memory.Add(d)
	}
	p.pendingChanged(0, held-e.mem)
	e.mem = held
}

// release gives back what a message that never made it into an entry held.
func (p *Producer) release(msgs int, mem int64) {
	for range msgs {
		<-p.permits
	}
	p.opts.Memory.Release(mem)
	p.pendingChanged(-msgs, -mem)
}

// enqueue appends e to the queue and writes it when attached. Called with
// p.mu held.
func (p *Producer) enqueue(e *entry) {
	p.enqueued++
	e.order = p.enqueued
	p.stats.pendingChunks.Add(int64(e.chunks))
	p.queue.push(e)
	p.armTimeout()
	if p.ready {
		p.write(e)
	}
}

// write sends e's frames (for a chunked message, the chunks not yet
// acknowledged that are fed), each payload a slice of e.payload. A write
// that fails because the connection closed waits for the reconnect; any
// other failure fails e. Called with p.mu held.
func (p *Producer) write(e *entry) {
	cmd := p.sendCommand(e)
	e.written = p.metricsNow()
	var err error
	if e.chunks == 0 {
		var payload []byte
		if payload, err = p.seal(e.meta, e.payload); err == nil {
			err = p.conn.SendPayload(cmd, e.meta, payload)
		}
	} else {
		e.wrote = e.acked
		err = p.writeChunks(e, cmd)
	}
	p.writeDone(e, err)
}

// sendCommand is the SEND command of e's frames. Called with p.mu held.
func (p *Producer) sendCommand(e *entry) *proto.BaseCommand {
	send := &proto.CommandSend{ProducerId: gproto.Uint64(p.opts.ProducerID), SequenceId: gproto.Uint64(e.seq)}
	if e.batched {
		send.NumMessages = gproto.Int32(int32(len(e.msgs)))
		if e.highest > e.seq {
			send.HighestSequenceId = gproto.Uint64(e.highest)
		}
	}
	if e.chunks > 0 {
		send.IsChunk = gproto.Bool(true)
	}
	setSendTxn(send, e.txn)
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: send}
}

// writeChunks writes e's fed chunks not yet written on this connection.
// Called with p.mu held, attached.
func (p *Producer) writeChunks(e *entry, cmd *proto.BaseCommand) error {
	for ; e.wrote < e.fed; e.wrote++ {
		c := e.chunk(e.wrote)
		wire.SetChunkHeader(e.meta, c.Header)
		payload, err := p.seal(e.meta, c.Payload)
		if err == nil {
			err = p.conn.SendPayload(cmd, e.meta, payload)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeDone handles the outcome of writing e. Called with p.mu held.
func (p *Producer) writeDone(e *entry, err error) {
	switch {
	case err == nil:
	case errors.Is(err, api.ErrCrypto):
		p.queue.remove(e)
		p.finish(e, nil, err)
	case errors.Is(err, conn.ErrClosed):
		// The connection handler reports it; pending entries are resent.
		p.ready = false
	default:
		p.queue.remove(e)
		p.finish(e, nil, fmt.Errorf("%w: %w", api.ErrMessageTooLarge, err))
	}
}
