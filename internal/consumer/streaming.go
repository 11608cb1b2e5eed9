package consumer

import (
	"errors"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// Streamed chunked messages.
//
// A chunked message larger than the Assembler's budget (or any, with
// Options.StreamAll) is not reassembled: at its chunk 0 the engine queues
// a Message whose Stream receives the chunks as they arrive, each in the
// frame it came in, and the application reads them in order. The broker
// gets a permit for a streamed chunk only once the application has read
// it, and while a stream is open no FLOW takes the chunks held plus the
// permits the broker holds beyond Options.StreamWindow: a stream holds at
// most StreamWindow chunks once the permits the broker held when it began
// (up to the receiver queue's size) are used up.
//
// Chunks of other messages interleaved with a stream's (another producer
// on the topic) go to the Assembler within its budget as usual, and are
// queued behind the stream once complete. Another streamed message gets
// its own Stream, queued behind: only the oldest stream (the one read
// first) counts against the window, so streams never wait on each other;
// the chunks the later ones hold stay within the Assembler's
// MaxPendingBytes together, beyond which the newest is given back and
// delivered again later (its Read, if it was handed out, fails).
//
// A stream that cannot go on fails (its Read returns an error wrapping
// ErrStreamBroken) and is never acknowledged by the engine: on a lost
// connection, a seek or Close the broker delivers it again anyway; when
// the application closes it early, or its chunks come out of order, its
// chunks are given back (redelivered after NackDelay); when it can never
// be completed (its producer sent a later message, or no chunk came for
// the chunk ExpireAfter) the IncompleteChunkPolicy applies. A stream is
// acknowledged only by the application, after io.EOF.

// streamState is the loop's record of a streamed message.
type streamState struct {
	uuid      string
	producer  string
	seq       uint64
	s         *Stream // nil: skipped (before the start or seek point), its chunks acknowledged
	msg       *Message
	t         *tracked
	num       int32
	total     int64
	got       int64
	ids       []messageid.ID
	held      int   // chunks pushed, not yet read or dropped
	heldBytes int64 // their bytes
	done      bool
	ended     bool
	handed    bool
	lastAt    time.Time
}

// streamable reports whether chunk 0 with metadata md and a payload of n
// bytes starts a streamed message. Its totals must be those of a
// producer's chunks (all of chunk 0's size but the last): a chunk 0 that
// claims more (hostile, or corrupt) goes to the Assembler, which refuses
// it.
func (e *Engine[T]) streamable(md *proto.MessageMetadata, n int) bool {
	num, total := int64(md.GetNumChunksFromMsg()), int64(md.GetTotalChunkMsgSize())
	if md.GetChunkId() != 0 || num < 2 || md.TotalChunkMsgSize == nil || n <= 0 ||
		int64(n)*num < total || int64(n)*(num-1) >= total ||
		len(md.GetEncryptionKeys()) > 0 || md.GetCompression() != proto.CompressionType_NONE || e.window.zero {
		return false
	}
	o := e.asm.Options()
	return e.o.StreamAll || int64(md.GetTotalChunkMsgSize()) > min(o.MaxPendingBytes, o.MaxMessageSize)
}

// onStreamChunk handles a chunk of a streamed message, or chunk 0 of one
// to stream; it reports false for a chunk that is not streamed. The frame
// is the engine's: kept until the chunk is read, or released.
func (e *Engine[T]) onStreamChunk(entry messageid.ID, cm *proto.CommandMessage, md *proto.MessageMetadata, f *wire.Frame) bool {
	uuid := md.GetUuid()
	st := e.streams[uuid]
	cid := md.GetChunkId()
	if st == nil {
		if !e.streamable(md, len(f.Payload)) {
			return false
		}
		st = e.startStream(entry, cm, md)
	} else if cid == 0 && posOf(st.ids[0]) != posOf(entry) {
		// Another stored copy of the message (a producer's resend): the
		// copy we stream is acknowledged as a duplicate; this one starts
		// over.
		e.endStream(st, errors.New("its chunk 0 arrived again as another entry"))
		e.ackNow(st.ids)
		st = e.startStream(entry, cm, md)
	} else if cid == 0 {
		e.ignoreChunk(f)
		return true
	}
	next := int32(len(st.ids))
	switch {
	case cid < next:
		if posOf(st.ids[cid]) != posOf(entry) {
			e.ackNow([]messageid.ID{entry}) // a duplicate copy
		}
		e.ignoreChunk(f)
		return true
	case cid > next || md.GetNumChunksFromMsg() != st.num || int64(md.GetTotalChunkMsgSize()) != st.total:
		e.endStream(st, fmt.Errorf("chunk %d of %d arrived, chunk %d of %d expected", cid, md.GetNumChunksFromMsg(), next, st.num))
		f.Release()
		e.grant(1)
		e.giveUp(uuid, append(st.ids, entry), chunk.ErrOutOfOrder)
		return true
	}
	n := int64(len(f.Payload))
	last := cid == st.num-1
	if st.got+n > st.total || (last && st.got+n != st.total) {
		e.endStream(st, fmt.Errorf("chunk %d of %d brings the payload to %d bytes of %d", cid, st.num, st.got+n, st.total))
		f.Release()
		e.grant(1)
		e.corrupt(append(st.ids, entry), proto.CommandAck_UncompressedSizeCorruption, chunk.ErrSizeMismatch)
		return true
	}
	st.got += n
	st.ids = append(st.ids, entry)
	st.lastAt = e.o.Clock.Now()
	if st.t != nil {
		st.t.chunks = st.ids
		st.t.last = posOf(entry)
	}
	switch {
	case st.s == nil:
		f.Release()
		e.ackNow([]messageid.ID{entry})
		e.grant(1)
		if last {
			e.forgetStream(st)
		}
	case st.s.push(f.Payload, f.Release):
		st.held++
		st.heldBytes += n
		e.streamHeld++
		e.checkInterleaved()
	default:
		e.grant(1)
	}
	if last {
		st.done = true
		delete(e.streams, uuid)
		defer e.forgetStream(st)
		if st.s != nil {
			id := messageid.NewChunk(st.ids[0], entry)
			st.s.finish(id)
			if st.handed {
				e.lastOut = id
			}
		}
	}
	e.armExpiry()
	return true
}

// ignoreChunk drops a chunk already streamed (a redelivery).
func (e *Engine[T]) ignoreChunk(f *wire.Frame) {
	f.Release()
	e.grant(1)
}

// startStream starts streaming the message of chunk 0 entry.
func (e *Engine[T]) startStream(entry messageid.ID, cm *proto.CommandMessage, md *proto.MessageMetadata) *streamState {
	uuid := md.GetUuid()
	st := &streamState{uuid: uuid, producer: md.GetProducerName(), seq: md.GetSequenceId(),
		num: md.GetNumChunksFromMsg(), total: int64(md.GetTotalChunkMsgSize()), lastAt: e.o.Clock.Now()}
	e.streams[uuid] = st
	e.streamList = append(e.streamList, st)
	e.renacked.forget(uuid)
	id := messageid.NewChunk(entry, entry)
	filterID := messageid.MessageID(id)
	if p, ok := e.filter.point.(messageid.ChunkMessageID); ok && posOf(p.FirstChunkID()) == posOf(entry) {
		filterID = p // this very message: as its whole id
	}
	if !e.passes(filterID, md.GetPublishTime()) || e.deferred.take(posOf(entry)) {
		return st // before the point, or acknowledged before it arrived: skipped
	}
	st.s = newStream(st.total,
		func(n int, bytes int64) { e.do(func() { e.streamConsumed(st, n, bytes) }) },
		func(err error) { e.do(func() { e.streamAborted(st, err) }) })
	st.msg = &Message{Topic: e.o.Topic, ID: id, Meta: md, RedeliveryCount: cm.GetRedeliveryCount(),
		BrokerMeta: e.brokerMeta, Stream: st.s, stream: st}
	st.t = &tracked{key: posOf(entry), last: posOf(entry), epoch: e.epoch, at: e.metricsNow(), stream: st}
	if !e.nonPersistent() {
		e.tracked[st.t.key] = st.t
	}
	e.enqueue(st.msg, st.t)
	return st
}

// streamConsumed runs when the application read (or dropped) n chunks of
// st: their permits go back to the broker.
func (e *Engine[T]) streamConsumed(st *streamState, n int, bytes int64) {
	n = min(n, st.held)
	st.held -= n
	st.heldBytes = max(0, st.heldBytes-bytes)
	e.streamHeld -= n
	e.forgetStream(st)
	e.grant(n)
}

// forgetStream drops st from the engine's list once it holds nothing more
// and takes no more chunks.
func (e *Engine[T]) forgetStream(st *streamState) {
	if st.held > 0 || (!st.done && !st.ended) {
		return
	}
	for i, o := range e.streamList {
		if o == st {
			e.streamList = append(e.streamList[:i], e.streamList[i+1:]...)
			return
		}
	}
}

// checkInterleaved bounds the chunks held by streams other than the one
// read first (the oldest): together they stay within the Assembler's
// MaxPendingBytes, or the newest of them is given back (and delivered
// again later) — the fallback for chunked messages interleaved with a
// stream.
func (e *Engine[T]) checkInterleaved() {
	for len(e.streamList) > 1 {
		var waiting int64
		for _, st := range e.streamList[1:] {
			waiting += st.heldBytes
		}
		if waiting <= e.asm.Options().MaxPendingBytes {
			return
		}
		newest := e.streamList[len(e.streamList)-1]
		e.log.Info("streamed messages interleaved beyond MaxPendingChunkedBytes: giving the newest back", "first", newest.ids[0])
		e.streamAborted(newest, errors.New("interleaved with an earlier stream beyond MaxPendingChunkedBytes"))
		e.forgetStream(newest)
	}
}

// endStream fails st (unless it is complete) and forgets it; its chunks
// held are dropped and their permits given back. The caller decides what
// happens to its chunks on the broker.
func (e *Engine[T]) endStream(st *streamState, reason error) {
	if st.ended {
		return
	}
	st.ended = true
	if e.streams[st.uuid] == st {
		delete(e.streams, st.uuid)
	}
	if st.s != nil {
		if dropped, bytes := st.s.fail(reason, !st.handed); dropped > 0 {
			e.streamConsumed(st, dropped, bytes)
		}
	}
	e.forgetStream(st)
	if st.t != nil && e.tracked[st.t.key] == st.t && (!st.done || !st.handed) {
		delete(e.tracked, st.t.key)
	}
	if st.msg != nil && !st.handed {
		e.withdraw(st.msg)
	}
}

// withdraw takes m out of the queue if it is there.
func (e *Engine[T]) withdraw(m *Message) {
	e.recall() // lent again by the loop, without m
	for i, q := range e.queue {
		if q == m {
			e.metricPrefetched(m, -1)
			e.dequeued(m)
			e.queue = append(e.queue[:i], e.queue[i+1:]...)
			if i == 0 {
				var zero T
				e.head, e.headSet = zero, false
			}
			return
		}
	}
}

// streamAborted runs when the application closed st's stream before its
// end: its chunks are redelivered, those still to come too.
func (e *Engine[T]) streamAborted(st *streamState, reason error) {
	if st.ended {
		return // broken or given back already
	}
	open := !st.done
	e.endStream(st, reason)
	if st.t != nil && e.tracked[st.t.key] == st.t {
		delete(e.tracked, st.t.key)
	}
	e.log.Info("streamed message given back before its end: asking for redelivery", "first", st.ids[0], "reason", reason)
	if open {
		e.renacked.add(st.uuid)
	}
	e.redeliverLater(st.ids)
}

// breakStreams fails every open stream for reason (a lost connection, a
// seek, Close): the broker delivers them again. With all (a seek, Close)
// the complete streams not read to their end fail too; after a lost
// connection they can still be read and acknowledged.
func (e *Engine[T]) breakStreams(reason error, all bool) {
	for _, st := range e.streams {
		e.endStream(st, reason)
	}
	if !all {
		return
	}
	for _, st := range append([]*streamState(nil), e.streamList...) {
		if st.s != nil && st.done && st.handed {
			if dropped, bytes := st.s.fail(reason, true); dropped > 0 {
				e.streamConsumed(st, dropped, bytes)
			}
		}
	}
}

// checkAbandoned fails the open streams of the producer of md that can
// never be completed: the producer sent a later message.
func (e *Engine[T]) checkAbandoned(md *proto.MessageMetadata) {
	if len(e.streams) == 0 || md == nil {
		return
	}
	for _, st := range e.streams {
		if st.producer == md.GetProducerName() && st.seq < md.GetSequenceId() && st.uuid != md.GetUuid() {
			e.endStream(st, fmt.Errorf("%w: its producer sent a later message after %d of %d chunks",
				chunk.ErrUnknownMessage, len(st.ids), st.num))
			e.giveUp(st.uuid, st.ids, errors.New("incomplete: its producer moved on"))
		}
	}
}

// expireStreams fails the open streams that got no chunk for the chunk
// ExpireAfter.
func (e *Engine[T]) expireStreams() {
	after := e.asm.Options().ExpireAfter
	if after < 0 {
		return
	}
	now := e.o.Clock.Now()
	for _, st := range e.streams {
		if now.Sub(st.lastAt) >= after {
			e.endStream(st, fmt.Errorf("%w: no chunk for %v after %d of %d chunks", chunk.ErrExpired, after, len(st.ids), st.num))
			e.giveUp(st.uuid, st.ids, chunk.ErrExpired)
		}
	}
}

// streamGate applies the stream window to a grant: while a stream is open
// or holds chunks, FLOW gives the broker only what keeps its permits plus
// the chunks held within StreamWindow. It reports whether it decided.
func (e *Engine[T]) streamGate() bool {
	if len(e.streamList) == 0 {
		return false
	}
	if e.state != stateReady || e.cn == nil {
		return true
	}
	if room := e.o.StreamWindow - e.brokerPerm - e.streamList[0].held; room > 0 && e.permits > 0 {
		n := min(room, e.permits)
		e.sendFlow(n)
		e.permits -= n
	}
	return true
}

// entryPermits is the permits an entry used: its messages.
func entryPermits(f *wire.Frame) int {
	if f != nil && f.Meta != nil && f.Meta.NumMessagesInBatch != nil {
		return max(int(f.Meta.GetNumMessagesInBatch()), 1)
	}
	return 1
}
