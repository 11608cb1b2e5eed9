package producer

import (
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// receipt matches a send receipt to the oldest entry by sequence id; the
// chunks of a chunked message are acknowledged one receipt each, in order.
func (p *Producer) receipt(gen uint64, r *proto.CommandSendReceipt) {
	e, ids := p.receiptLocked(gen, r)
	if e == nil {
		return
	}
	// On the connection's reader, outside the lock, before the callbacks
	// are queued: see Receipted.
	for i, m := range e.msgs {
		if m.receipted != nil {
			m.receipted(ids.at(i))
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish(e, ids, nil)
	p.armTimeout()
}

// receiptLocked applies a receipt and returns the entry it completes, taken
// out of the queue, with its ids; nil when it completes none.
func (p *Producer) receiptLocked(gen uint64, r *proto.CommandSendReceipt) (*entry, receiptIDs) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen != p.gen {
		return nil, receiptIDs{}
	}
	seq := r.GetSequenceId()
	e := p.queue.peek()
	switch {
	case e == nil || seq < e.seq:
		// The receipt of a message that already failed (timeout, error).
		p.log.Debug("receipt for a message no longer pending", "seq", seq)
		return nil, receiptIDs{}
	case seq > e.seq:
		// The receipt of the oldest entry was lost: resend from a new
		// connection, as the official clients do.
		p.log.Warn("receipt out of order; reconnecting to resend", "seq", seq, "expected", e.seq)
		if c := p.conn; c != nil {
			go c.Close()
		}
		return nil, receiptIDs{}
	}
	mid := r.GetMessageId()
	id := messageid.New(int64(mid.GetLedgerId()), int64(mid.GetEntryId()), -1, p.opts.Partition, 0)
	if e.chunks > 0 {
		if e.acked == 0 {
			e.first = id
		}
		e.acked++
		p.chunkReceipt(e)
		p.stats.chunks.Add(1)
		p.stats.pendingChunks.Add(-1)
		if e.acked < e.chunks {
			return nil, receiptIDs{}
		}
	}
	p.queue.pop()
	if e.batched && p.opts.Compression == 0 {
		// The broker has the whole frame, so the batch payload is no
		// longer written or resent (seal gives encryption its own
		// buffer): it can hold the next batch.
		p.batches.recycle(e.payload)
		e.payload = nil
	}
	return e, receiptIDs{id: id, e: e}
}

// receiptIDs computes the message ids of an acknowledged entry.
type receiptIDs struct {
	id messageid.ID
	e  *entry
}

func (r receiptIDs) at(i int) messageid.MessageID {
	switch {
	case r.e.chunks > 0:
		return messageid.NewChunk(r.e.first, r.id)
	case r.e.batched:
		return messageid.New(r.id.LedgerID(), r.id.EntryID(), int32(i), r.id.PartitionIdx(), int32(len(r.e.msgs)))
	}
	return r.id
}

// sendError fails the entry the broker refused, whole, once; the producer
// goes on with the next ones.
func (p *Producer) sendError(gen uint64, se *proto.CommandSendError) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen != p.gen {
		return
	}
	e := p.queue.find(se.GetSequenceId())
	if e == nil {
		return
	}
	p.queue.remove(e)
	err := &conn.ServerError{Code: se.GetError(), Message: se.GetMessage()}
	p.finish(e, nil, fmt.Errorf("send of sequence id %d: %w", e.seq, err))
	p.armTimeout()
}

// failAll fails every queued entry with err. Called without p.mu.
func (p *Producer) failAll(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.queue.takeAll() {
		p.finish(e, nil, err)
	}
}

// finish releases what e held and schedules its callbacks: with ids on
// success, err otherwise. e is already out of the queue. Called with p.mu
// held.
func (p *Producer) finish(e *entry, ids interface{ at(int) messageid.MessageID }, err error) {
	if e.stream != nil && e.stream.mem != nil {
		e.stream.mem.Release(e.mem)
		p.release(len(e.msgs), 0)
		p.pendingChanged(0, -e.mem)
	} else {
		p.release(len(e.msgs), e.mem)
	}
	e.mem = 0
	if e.stream != nil {
		e.stream.held = nil // nothing writes them any more
	}
	if e.order != 0 { // enqueued
		p.stats.pendingChunks.Add(-int64(e.chunks - e.acked))
	}
	p.metricFinished(e, err)
	if err == nil {
		p.stats.messages.Add(uint64(len(e.msgs)))
		p.stats.entries.Add(1)
		for _, m := range e.msgs {
			p.stats.bytes.Add(uint64(m.size))
		}
		if int64(e.highest) > p.lastSeq.Load() {
			p.lastSeq.Store(int64(e.highest))
		}
	} else {
		p.stats.failed.Add(uint64(len(e.msgs)))
	}
	e.err, e.finished = err, true
	if e.abort != nil {
		e.abort(err) // a feed still waiting for room stops
	}
	msgs, batched := e.msgs, e.batched
	p.cbs.push(func() {
		for i := range msgs {
			if err != nil {
				msgs[i].complete(p, nil, err)
			} else {
				msgs[i].complete(p, ids.at(i), nil)
			}
		}
		if batched {
			p.batches.recycleMsgs(msgs) // nothing reads them any more
		}
	})
	// A Flush waiting for e goes on to wait for the runner to get past the
	// callbacks just queued.
	if e.done != nil {
		close(e.done)
	}
}

// armTimeout makes sure the oldest entry fails when its send timeout
// passes. Called with p.mu held.
func (p *Producer) armTimeout() {
	if p.timeoutOn || p.opts.SendTimeout <= 0 {
		return
	}
	e := p.queue.peek()
	if e == nil || e.deadline.IsZero() {
		return
	}
	p.timeoutOn = true
	p.stopTimeout = p.afterFunc(e.deadline.Sub(p.opts.Clock.Now()), (*Producer).onTimeout)
}

// onTimeout fails, whole, every entry from the oldest on whose deadline
// passed, and rearms for the next.
func (p *Producer) onTimeout() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == stateClosed {
		return // Close failed everything; a timer that fired as it stopped it
	}
	p.timeoutOn, p.stopTimeout = false, nil
	now := p.opts.Clock.Now()
	for {
		e := p.queue.peek()
		if e == nil || e.deadline.IsZero() || e.deadline.After(now) {
			break
		}
		p.queue.pop()
		p.log.Warn("send timeout", "seq", e.seq, "messages", len(e.msgs), "chunks", e.chunks, "acked_chunks", e.acked)
		p.finish(e, nil, fmt.Errorf("%w: sequence id %d not acknowledged within %v",
			api.ErrSendTimeout, e.seq, p.opts.SendTimeout))
	}
	p.armTimeout()
}
