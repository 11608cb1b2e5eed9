package consumer

import (
	"errors"
	"slices"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
	"github.com/pulsargo/sdk/messageid"
)

// isChunk reports whether an entry is a chunk of a chunked message. A
// "chunk" claiming to be the only one is an ordinary message, as producers
// never send it that way; other invalid counts go to the Assembler, which
// refuses them.
func isChunk(md *proto.MessageMetadata) bool {
	return md.Uuid != nil && md.NumChunksFromMsg != nil && md.GetNumChunksFromMsg() != 1
}

// onMessage parses one delivered entry.
func (e *Engine[T]) onMessage(ev event) {
	cm := ev.msg
	mid := cm.GetMessageId()
	entry := messageid.New(int64(mid.GetLedgerId()), int64(mid.GetEntryId()), -1, e.o.Partition, 0)
	if ev.err != nil || ev.frame == nil || ev.frame.Meta == nil {
		e.corrupt([]messageid.ID{entry}, proto.CommandAck_ChecksumMismatch, ev.err)
		e.grant(1)
		return
	}
	md := ev.frame.Meta
	e.brokerMeta = ev.frame.BrokerMeta
	e.checkAbandoned(md)
	if isChunk(md) && e.onStreamChunk(entry, cm, md, ev.frame) {
		return
	}
	payload, ok := e.decrypt(entry, cm, md, ev.frame.Payload)
	if !ok {
		return
	}
	if isChunk(md) {
		e.onChunk(entry, cm, md, payload)
		// The Assembler copied the chunk: its frame buffer can serve the
		// next frame, so a chunked message costs one buffer of its size.
		ev.frame.Release()
		return
	}
	e.onEntry(entry, nil, cm, md, payload)
}

// onChunk feeds a chunk to the Assembler and handles what it gives up on.
func (e *Engine[T]) onChunk(id messageid.ID, cm *proto.CommandMessage, md *proto.MessageMetadata, payload []byte) {
	msg, discarded, err := e.asm.Add(chunk.Incoming{Header: wire.ChunkHeader(md), Payload: payload, ID: id})
	for _, d := range discarded {
		if !errors.Is(d.Reason, chunk.ErrDuplicate) {
			delete(e.firstChunk, d.UUID)
		}
		e.onDiscarded(d, md)
	}
	if msg == nil {
		if err == nil && md.GetChunkId() == 0 {
			if _, ok := e.firstChunk[md.GetUuid()]; !ok {
				e.firstChunk[md.GetUuid()] = id
			}
		}
		e.grant(1) // a chunk's permit comes back at once; the Assembler's limits bound the memory
		e.armExpiry()
		return
	}
	delete(e.firstChunk, msg.UUID)
	e.onEntry(id, msg, cm, md, msg.Payload) // md: the last chunk's
}

// onDiscarded applies the chunk policy to chunks the Assembler gave up on.
func (e *Engine[T]) onDiscarded(d chunk.Discarded, md *proto.MessageMetadata) {
	ids := d.ChunkIDs
	if len(ids) == 0 {
		return
	}
	switch r := d.Reason; {
	case errors.Is(r, chunk.ErrReset):
		// A seek: the broker starts over, nothing to tell it.
	case errors.Is(r, chunk.ErrDuplicate), errors.Is(r, chunk.ErrSuperseded):
		// Another stored copy of chunks we have (or had): acknowledge it.
		e.log.Debug("duplicate chunks", "err", r)
		e.ackNow(ids)
	case errors.Is(r, chunk.ErrUnknownMessage):
		last := ids[len(ids)-1]
		age := e.o.Clock.Now().UnixMilli() - int64(md.GetPublishTime())
		switch {
		case e.precedes(last, md.GetPublishTime()):
			// A straggler of a message that starts before the seek point.
			e.ackNow(ids)
		case e.dropped.has(d.UUID):
			// The rest of a message dropped under ChunkAck.
			e.ackNow(ids)
		case e.renacked.has(d.UUID):
			// The rest of a message whose first chunks are to be
			// redelivered: it comes back after them, in order.
			e.redeliverLater(ids)
		case age > e.asm.Options().ExpireAfter.Milliseconds() && e.asm.Options().ExpireAfter > 0:
			// Its first chunk is gone for good (acknowledged, or lost).
			e.log.Warn("chunk without its first chunk, too old to wait for it: acknowledging", "id", last, "err", r)
			e.ackNow(ids)
		default:
			e.redeliverLater(ids)
		}
	case errors.Is(r, chunk.ErrTooLarge), errors.Is(r, chunk.ErrOverBudget):
		// Larger than MaxPendingBytes and not streamable (compressed,
		// encrypted, or a zero queue): say so loudly, it comes back.
		e.log.Error("chunked message larger than the consumer reassembles and not streamable (compressed or encrypted): "+
			"raise ConsumerOptions.MaxPendingChunkedBytes", "first", ids[0], "err", r)
		e.giveUp(d.UUID, ids, r)
	case errors.Is(r, chunk.ErrEvicted), errors.Is(r, chunk.ErrExpired), errors.Is(r, chunk.ErrOutOfOrder):
		e.giveUp(d.UUID, ids, r)
	default:
		// Metadata or sizes that can never add up: corrupt.
		e.corrupt(ids, proto.CommandAck_UncompressedSizeCorruption, r)
	}
}

// giveUp applies AckIncompleteChunks to an incomplete chunked message.
func (e *Engine[T]) giveUp(uuid string, ids []messageid.ID, reason error) {
	if e.o.AckIncompleteChunks {
		e.log.Warn("incomplete chunked message dropped (ChunkAck)", "first", ids[0], "err", reason)
		e.dropped.add(uuid)
		e.ackNow(ids)
		return
	}
	e.log.Info("incomplete chunked message: asking for redelivery", "first", ids[0], "err", reason)
	e.renacked.add(uuid)
	e.redeliverLater(ids)
}

// onEntry turns an entry (or a reassembled chunked message) into messages,
// or parks it compressed when the memory budget says so (hold.go).
func (e *Engine[T]) onEntry(entry messageid.ID, cmsg *chunk.Message, cm *proto.CommandMessage, md *proto.MessageMetadata, payload []byte) {
	p := parkedEntry{entry: entry, cmsg: cmsg, cm: cm, md: md, payload: payload, brokerMeta: e.brokerMeta}
	if len(e.parked) > 0 || !e.mayParse(&p) {
		e.park(p)
		return
	}
	e.parseEntry(entry, cmsg, cm, md, payload)
}

// parseEntry decompresses an entry (or a reassembled chunked message) and
// queues its messages.
func (e *Engine[T]) parseEntry(entry messageid.ID, cmsg *chunk.Message, cm *proto.CommandMessage, md *proto.MessageMetadata, payload []byte) {
	ids := []messageid.ID{entry}
	var id messageid.MessageID = entry
	if cmsg != nil {
		ids, id = cmsg.ChunkIDs, cmsg.ID
	}
	body, code, err := e.decompress(md, payload)
	if err != nil {
		e.corrupt(ids, code, err)
		e.grant(1)
		return
	}
	if !wire.IsBatch(md) {
		e.accept(&Message{Topic: e.o.Topic, ID: id, Payload: body, Meta: md, RedeliveryCount: cm.GetRedeliveryCount(), BrokerMeta: e.brokerMeta}, ids)
		return
	}
	if cmsg != nil {
		e.corrupt(ids, proto.CommandAck_BatchDeSerializeError, errors.New("chunked message claims to be a batch"))
		e.grant(1)
		return
	}
	e.onBatch(entry, cm, md, body)
}

// decompress returns the uncompressed payload, checking the announced size
// against MaxMessageSize before allocating.
func (e *Engine[T]) decompress(md *proto.MessageMetadata, payload []byte) ([]byte, proto.CommandAck_ValidationError, error) {
	t := compress.Type(md.GetCompression())
	if t == compress.NONE {
		return payload, 0, nil
	}
	codec, err := compress.Lookup(t)
	if err != nil {
		return nil, proto.CommandAck_DecompressionError, err
	}
	out, err := compress.Decompress(codec, nil, payload, int(md.GetUncompressedSize()), e.o.MaxMessageSize)
	switch {
	case errors.Is(err, compress.ErrSizeLimit), errors.Is(err, compress.ErrInvalidSize):
		return nil, proto.CommandAck_UncompressedSizeCorruption, err
	case err != nil:
		return nil, proto.CommandAck_DecompressionError, err
	}
	return out, 0, nil
}

// onBatch unpacks a batch entry, skipping what its ack_set says is
// acknowledged.
func (e *Engine[T]) onBatch(entry messageid.ID, cm *proto.CommandMessage, md *proto.MessageMetadata, body []byte) {
	n := int(md.GetNumMessagesInBatch())
	ackSet := cm.GetAckSet()
	charged := n
	if len(ackSet) > 0 {
		if bitsBeyond(ackSet, n) {
			e.log.Warn("ack_set longer than the batch: ignoring the bits beyond it", "id", entry, "batch", n, "words", len(ackSet))
		}
		charged = countSet(ackSet, n)
	}
	msgs, err := wire.DecodeBatch(body, n)
	if err != nil {
		e.corrupt([]messageid.ID{entry}, proto.CommandAck_BatchDeSerializeError, err)
		e.grant(min(max(charged, 1), max(e.window.size, 1)))
		return
	}
	t := e.batchTracked(entry, n)
	var keep []*Message
	for i, bm := range msgs {
		if len(ackSet) > 0 && !bitSet(ackSet, i) {
			setBit(t.acked, i) // acknowledged before
			continue
		}
		if bm.Meta.GetCompactedOut() {
			// An empty slot that compaction left so that the other
			// messages keep their batch index: not a message, and
			// nothing to acknowledge (Pulsar's Java client skips it too).
			setBit(t.acked, i)
			continue
		}
		if hasBit(t.acked, i) || hasBit(t.inQueue, i) {
			// A redelivery of an entry still tracked: this message was
			// acknowledged on an earlier copy, or that copy still waits
			// in the queue.
			continue
		}
		id := messageid.New(entry.LedgerID(), entry.EntryID(), int32(i), e.o.Partition, int32(n))
		if !e.passes(id, md.GetPublishTime()) {
			setBit(t.acked, i)
			continue
		}
		clearBit(t.nacked, i) // back here
		keep = append(keep, &Message{Topic: e.o.Topic, ID: id, Payload: bm.Body, Meta: md, Single: bm.Meta,
			RedeliveryCount: cm.GetRedeliveryCount(), BrokerMeta: e.brokerMeta})
	}
	if extra := charged - len(keep); extra > 0 {
		e.grant(extra)
	}
	if len(keep) == 0 {
		if e.allAcked(t) {
			// Everything in it was filtered out or acknowledged.
			e.untrack(t)
			e.ackNow([]messageid.ID{entry})
		}
		return
	}
	if !e.nonPersistent() { // see accept
		e.tracked[t.key] = t
	}
	// The messages share the batch's body: each counts its part of it
	// against the memory budget.
	share := max(int64(len(body))/int64(len(keep)), 1)
	for i, m := range keep {
		m.held = share
		if i == len(keep)-1 {
			m.held = max(int64(len(body))-share*int64(len(keep)-1), 1)
		}
		e.enqueue(m, t)
	}
}

// batchTracked returns the record of a batch entry just received: the one
// it has already when the entry is redelivered while tracked (since the
// last seek, with the same batch size), so that acknowledgments made on
// the earlier copy count, or a new one.
func (e *Engine[T]) batchTracked(entry messageid.ID, n int) *tracked {
	key := posOf(entry)
	if t := e.tracked[key]; t != nil && t.batch == n && t.epoch == e.epoch && !e.nonPersistent() {
		return t
	}
	return &tracked{key: key, last: key, batch: n, epoch: e.epoch, at: e.metricsNow(),
		acked: make([]uint64, (n+63)/64), nacked: make([]uint64, (n+63)/64), inQueue: make([]uint64, (n+63)/64)}
}

// accept filters and queues a message that is not part of a batch; ids are
// its entries (every chunk of a chunked message).
func (e *Engine[T]) accept(m *Message, ids []messageid.ID) {
	if !e.passes(m.ID, m.Meta.GetPublishTime()) {
		e.ackNow(ids) // before the start or seek point
		e.grant(1)
		return
	}
	if c, ok := m.ID.(messageid.ChunkMessageID); ok && e.deferred.take(posOf(c.FirstChunkID())) {
		e.ackNow(ids) // acknowledged by id before it arrived
		e.grant(1)
		return
	}
	key := posOf(messageid.FirstChunk(m.ID))
	if e.nonPersistent() {
		// Every message of a non-persistent topic has the same id (0:0)
		// and none is redelivered: it is queued without a record, so
		// that acknowledging one never touches the others.
		e.enqueue(m, &tracked{key: key, epoch: e.epoch})
		return
	}
	t := e.tracked[key]
	switch {
	case t == nil || t.batch != 0 || t.epoch != e.epoch:
		t = &tracked{key: key, epoch: e.epoch, at: e.metricsNow()}
		e.tracked[key] = t
	case t.queued > 0 && len(ids) == 1:
		// Redelivered while its earlier copy still waits in the queue.
		e.grant(1)
		return
	}
	t.last = posOf(messageid.LastChunk(m.ID))
	t.chunks = nil
	if len(ids) > 1 {
		t.chunks = ids
	}
	e.enqueue(m, t)
}

// enqueue offers m to Divert and queues it otherwise; t is its record.
func (e *Engine[T]) enqueue(m *Message, t *tracked) {
	e.metricReceived(m)
	if e.o.Divert != nil && m.Stream == nil && e.o.Divert(m) {
		e.o.Metrics.Add(api.MetricDLQ, 1)
		e.grant(1)
		return
	}
	e.queue = append(e.queue, m)
	e.metricPrefetched(m, 1)
	if m.held == 0 {
		m.held = int64(len(m.Payload))
	}
	e.o.Memory.charge(m.held)
	t.queued++
	if i := int(m.ID.BatchIdx()); t.batch > 0 && i >= 0 && i < t.batch {
		setBit(t.inQueue, i)
	}
}

// dequeued updates the record of m, which left the queue (handed out or
// dropped).
func (e *Engine[T]) dequeued(m *Message) {
	e.o.Memory.release(m.held)
	m.held = 0
	t := e.tracked[posOf(messageid.FirstChunk(m.ID))]
	if t == nil || t.queued == 0 {
		return
	}
	if i := int(m.ID.BatchIdx()); t.batch > 0 && i >= 0 && i < t.batch {
		if !hasBit(t.inQueue, i) {
			return
		}
		clearBit(t.inQueue, i)
	}
	t.queued--
}

// corrupt drops entries that cannot be parsed: logged, and acknowledged
// with a validation error (consumers; readers skip them).
func (e *Engine[T]) corrupt(ids []messageid.ID, code proto.CommandAck_ValidationError, err error) {
	e.log.Warn("dropping corrupt message", "first", ids[0], "entries", len(ids), "validation", code.String(), "err", err)
	for _, id := range ids {
		delete(e.tracked, posOf(id))
	}
	if e.o.Reader || e.cn == nil {
		return
	}
	datas := make([]*proto.MessageIdData, len(ids))
	for i, id := range ids {
		datas[i] = entryData(id, nil)
	}
	e.sendAck(datas, proto.CommandAck_Individual, &code, nil)
}

func bitSet(words []int64, i int) bool {
	return i/64 < len(words) && uint64(words[i/64])&(1<<(uint(i)%64)) != 0
}

func setBit(words []uint64, i int)   { words[i/64] |= 1 << (uint(i) % 64) }
func clearBit(words []uint64, i int) { words[i/64] &^= 1 << (uint(i) % 64) }
func hasBit(words []uint64, i int) bool {
	return i/64 < len(words) && words[i/64]&(1<<(uint(i)%64)) != 0
}

// countSet counts the set bits of ack_set below n.
func countSet(words []int64, n int) int {
	c := 0
	for i := range n {
		if bitSet(words, i) {
			c++
		}
	}
	return c
}

// bitsBeyond reports whether ack_set has words or set bits past n.
func bitsBeyond(words []int64, n int) bool {
	if len(words) > (n+63)/64 {
		return true
	}
	for i := n; i < len(words)*64; i++ {
		if bitSet(words, i) {
			return true
		}
	}
	return false
}

// uuidSet is a bounded set of chunk uuids, oldest forgotten first.
type uuidSet struct {
	m     map[string]struct{}
	order []string
}

func (s *uuidSet) add(uuid string) {
	if s.m == nil {
		s.m = map[string]struct{}{}
	}
	if _, ok := s.m[uuid]; ok {
		return
	}
	s.m[uuid] = struct{}{}
	s.order = append(s.order, uuid)
	if len(s.order) > maxDeferredAcks {
		delete(s.m, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *uuidSet) forget(uuid string) {
	if _, ok := s.m[uuid]; ok {
		delete(s.m, uuid)
		s.order = slices.DeleteFunc(s.order, func(u string) bool { return u == uuid })
	}
}

func (s *uuidSet) has(uuid string) bool {
	_, ok := s.m[uuid]
	return ok
}
