package consumer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// ErrCumulativeNotAllowed: cumulative acknowledgment on a Shared or
// Key_Shared subscription. It wraps api.ErrInvalidAck, a case of
// api.ErrInvalidOptions.
var ErrCumulativeNotAllowed = fmt.Errorf("%w: cumulative ack is not allowed on Shared and Key_Shared subscriptions",
	api.ErrInvalidAck)

// tracked is a delivered message (or batch entry) not yet acknowledged.
// One record stands for an entry however often it is delivered: a
// redelivery (nack, ack timeout, reconnect) while the record exists joins
// it (see onBatch and accept), so acknowledgments made on any copy count,
// and copies still waiting in the queue are known (queued, inQueue).
type tracked struct {
	key     position       // the entry, or a chunked message's first chunk
	last    position       // a chunked message's last chunk; key otherwise
	batch   int            // batch size, 0 when not a batch
	acked   []uint64       // batch: indexes acknowledged (by the app, before, or filtered)
	nacked  []uint64       // batch: indexes given back (Shared, Key_Shared; see gaveBack)
	inQueue []uint64       // batch: indexes with a copy waiting in the queue
	queued  int            // copies of its messages waiting in the queue
	chunks  []messageid.ID // chunked: every chunk, in order
	handed  bool           // handed to the application
	stream  *streamState   // a streamed message's, nil for others
	epoch   uint64         // the engine's seek epoch when it was made
	timeout int64          // ack-timeout deadline (Unix nanos), 0 when none
	at      time.Time      // when it was received, with metrics only
}

// ids returns the entries to acknowledge or redeliver for the whole of t.
func (t *tracked) ids(partition int32) []messageid.ID {
	if t.chunks != nil {
		return t.chunks
	}
	return []messageid.ID{messageid.New(t.key.ledger, t.key.entry, -1, partition, 0)}
}

// ackSet returns Pulsar's ack_set for t: a set bit is not acknowledged.
func (t *tracked) ackSet() []int64 {
	out := make([]int64, len(t.acked))
	for i := range t.batch {
		if !hasBit(t.acked, i) {
			out[i/64] |= 1 << (uint(i) % 64)
		}
	}
	return out
}

// ackGroup holds acknowledgments not sent yet.
type ackGroup struct {
	individual map[position]*proto.MessageIdData
	order      []position
	cumulative *proto.MessageIdData
}

func (g *ackGroup) reset() {
	g.individual = map[position]*proto.MessageIdData{}
	g.order = g.order[:0]
	g.cumulative = nil
}

func (g *ackGroup) len() int {
	n := len(g.individual)
	if g.cumulative != nil {
		n++
	}
	return n
}

// add groups an individual ack; ack sets of one entry are merged.
func (g *ackGroup) add(d *proto.MessageIdData) {
	p := position{int64(d.GetLedgerId()), int64(d.GetEntryId())}
	old, ok := g.individual[p]
	if !ok {
		g.individual[p] = d
		g.order = append(g.order, p)
		return
	}
	if len(old.AckSet) == 0 || len(d.AckSet) == 0 {
		old.AckSet = nil // the whole entry
		return
	}
	for i := range min(len(old.AckSet), len(d.AckSet)) {
		old.AckSet[i] &= d.AckSet[i]
	}
}

// Ack acknowledges the message id names: every chunk of a chunked message,
// one index of a batch. With AckWithResponse it waits for the broker's
// receipt.
//
// An id this engine does not track (any more) is not an error, as with the
// official Go client (v0.19.0), whose Ack of an id it no longer tracks
// succeeds: a message acknowledged already (another copy of it, redelivered
// after a nack), or delivered before a seek or by another consumer. Such an
// id is acknowledged as far as it can be without touching other messages:
// an entry or a chunked message as a whole, a batch index alone with
// BatchIndexAck; a batch index without BatchIndexAck sends nothing (the
// official client would acknowledge the whole batch, siblings included, and
// lose those not processed yet), so if its entry is still unacknowledged
// the broker delivers it again. Only an id that cannot name a message (a
// batch index past its batch's size) is refused with ErrUnknownID.
func (e *Engine[T]) Ack(ctx context.Context, id messageid.MessageID) error {
	return e.ack(ctx, id, false)
}

// AckCumulative acknowledges every message up to and including id.
func (e *Engine[T]) AckCumulative(ctx context.Context, id messageid.MessageID) error {
	if e.o.SubType == proto.CommandSubscribe_Shared || e.o.SubType == proto.CommandSubscribe_Key_Shared {
		return ErrCumulativeNotAllowed
	}
	return e.ack(ctx, id, true)
}

func (e *Engine[T]) ack(ctx context.Context, id messageid.MessageID, cumulative bool) error {
	if !cumulative && !e.o.AckWithResponse && !e.o.Metrics.On() && ackCannotFail(id) {
		// Queued for the loop, not waited for: a round trip to the loop
		// per Ack was most of a receive-and-ack loop's time (W6 of
		// pulsarbench: 0.38 of 0.55 s of its CPU). The loop takes the
		// queued acks before any operation (settle), so whatever the
		// caller does next on this engine (a Close, a Seek) runs after
		// the ack. With a metrics hook the ack is counted (and its
		// processing time observed) before Ack returns, so it waits.
		select {
		case <-e.done:
			return ErrClosed
		default:
		}
		if e.queueAck(id) {
			return nil
		}
		if !e.do(func() {
			if _, _, err := e.ackOnLoop(id, false); err != nil {
				e.log.Warn("acknowledgment refused", "id", id, "err", err)
			}
		}) {
			return ErrClosed
		}
		return nil
	}
	var datas []*proto.MessageIdData
	var cn *conn.Conn
	var err error
	callErr := e.call(func() { datas, cn, err = e.ackOnLoop(id, cumulative) })
	if callErr != nil {
		return callErr
	}
	if err != nil || cn == nil {
		return err
	}
	typ := proto.CommandAck_Individual
	if cumulative {
		typ = proto.CommandAck_Cumulative
	}
	ctx, cancel := context.WithTimeout(ctx, e.o.OperationTimeout)
	defer cancel()
	rid := cn.NewRequestID()
	if _, err := cn.Request(ctx, rid, e.ackCmd(datas, typ, nil, &rid)); err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	return nil
}

// ackCannotFail reports whether an individual ack of id can fail only if
// the engine is closed: a plain id (a chunk id may name a streamed message
// not read to its end yet, ErrStreamOpen) that names an entry, or a batch
// index within the batch size it carries. (An id whose batch size
// misstates its entry's is refused on the loop, and logged.)
func ackCannotFail(id messageid.MessageID) bool {
	if _, ok := id.(messageid.ChunkMessageID); ok {
		return false
	}
	one := messageid.Of(id)
	i, n := one.BatchIdx(), one.BatchSize()
	return i < 0 || i < n
}

// ackOnLoop acknowledges id on the loop: it updates the tracking and
// groups what to send, or, with AckWithResponse, returns it and the
// connection to send it on. Loop goroutine.
func (e *Engine[T]) ackOnLoop(id messageid.MessageID, cumulative bool) (datas []*proto.MessageIdData, cn *conn.Conn, err error) {
	at := e.receivedAt(id)
	if cumulative {
		datas = e.ackCumulativeLocal(id)
	} else {
		datas, err = e.ackLocal(id)
	}
	if err == nil {
		e.metricAcked(at)
	}
	if err != nil || len(datas) == 0 {
		return nil, nil, err
	}
	if e.o.AckWithResponse && e.cn != nil {
		return datas, e.cn, nil
	}
	if cumulative {
		e.acks.cumulative = datas[0]
	} else {
		for _, d := range datas {
			e.acks.add(d)
		}
	}
	e.ackAdded()
	return nil, nil, nil
}

// ackLocal updates the tracking for an individual ack of id and returns
// what to send now (possibly nothing).
func (e *Engine[T]) ackLocal(id messageid.MessageID) ([]*proto.MessageIdData, error) {
	if e.nonPersistent() {
		// Nothing to update or send: a chunk id waiting for "its" message
		// took the next chunked message for it and dropped it, and a batch
		// index was checked against another batch.
		return nil, nil
	}
	if c, ok := id.(messageid.ChunkMessageID); ok {
		key := posOf(c.FirstChunkID())
		t := e.tracked[key]
		if t == nil && e.nonPersistent() {
			return nil, nil // nothing to acknowledge on a non-persistent topic (see accept)
		}
		if t == nil {
			// Not delivered by this engine: acknowledge its chunks when
			// they arrive (see the package documentation).
			if evicted, ok := e.deferred.add(key, posOf(c.LastChunkID())); ok {
				e.log.Warn("too many chunk ids waiting for their message: forgetting one", "first", evicted)
			}
			return nil, nil
		}
		if st := t.stream; st != nil && !st.done {
			return nil, fmt.Errorf("%w: %v: a streamed message is acknowledged once its stream was read to io.EOF", ErrStreamOpen, id)
		}
		e.untrack(t)
		return datasOf(t.ids(e.o.Partition)), nil
	}
	one := messageid.Of(id)
	key := posOf(one)
	t := e.tracked[key]
	if one.BatchIdx() < 0 || (t != nil && t.batch == 0) {
		if t != nil {
			e.untrack(t)
			return datasOf(t.ids(e.o.Partition)), nil
		}
		return []*proto.MessageIdData{entryData(one, nil)}, nil
	}
	i := int(one.BatchIdx())
	if t == nil {
		n := int(one.BatchSize())
		switch {
		case n == 1:
			return []*proto.MessageIdData{entryData(one, nil)}, nil
		case n > 1 && i < n && e.o.BatchIndexAck:
			t = &tracked{key: key, last: key, batch: n, acked: make([]uint64, (n+63)/64)}
			setBit(t.acked, i)
			return []*proto.MessageIdData{entryData(one, t.ackSet())}, nil
		case n > 0 && i >= n:
			return nil, fmt.Errorf("%w: %v: batch index %d past its batch size %d", ErrUnknownID, id, i, n)
		}
		// Acknowledged already (all of its batch was, on some copy), or
		// from before a seek: nothing to send that would not also
		// acknowledge its siblings (see Ack).
		e.log.Debug("ack of a batch index not tracked: nothing to send", "id", id, "batch", n)
		return nil, nil
	}
	if i >= t.batch {
		return nil, fmt.Errorf("%w: batch index %d of %d", ErrUnknownID, i, t.batch)
	}
	setBit(t.acked, i)
	if e.allAcked(t) {
		e.untrack(t)
		return []*proto.MessageIdData{entryData(one, nil)}, nil
	}
	if e.allDone(t) {
		// The rest was given back: its redelivery, here or to another
		// consumer, brings the entry again (gaveBack).
		e.untrack(t)
	}
	if e.o.BatchIndexAck {
		return []*proto.MessageIdData{entryData(one, t.ackSet())}, nil
	}
	return nil, nil
}

// allDone reports whether each message of batch t is acknowledged or
// given back.
func (e *Engine[T]) allDone(t *tracked) bool {
	for i := range t.batch {
		if !hasBit(t.acked, i) && !hasBit(t.nacked, i) {
			return false
		}
	}
	return true
}

func (e *Engine[T]) allAcked(t *tracked) bool {
	for i := range t.batch {
		if !hasBit(t.acked, i) {
			return false
		}
	}
	return true
}

// untrack forgets t, wholly acknowledged, and withdraws the copies of its
// messages still waiting in the queue: they are acknowledged already (a
// batch redelivered while its first copy was queued, a cumulative ack past
// a redelivered entry), and an Ack of them would find nothing to update.
func (e *Engine[T]) untrack(t *tracked) {
	delete(e.tracked, t.key)
	if t.queued == 0 {
		return
	}
	t.queued = 0
	clear(t.inQueue)
	e.recall() // lent again below, without the copies
	e.queue = slices.DeleteFunc(e.queue, func(m *Message) bool {
		if posOf(messageid.FirstChunk(m.ID)) == t.key {
			e.metricPrefetched(m, -1)
			e.o.Memory.release(m.held)
			m.held = 0
			if st := m.stream; st != nil {
				st.msg = nil
				e.endStream(st, errors.New("acknowledged before it was received"))
				return true // its chunks' permits came back as they were dropped
			}
			e.grant(1)
			return true
		}
		return false
	})
	var zero T
	e.head, e.headSet = zero, false
	e.unpark() // the queue may be empty now
}

// ackCumulativeLocal updates the tracking for a cumulative ack and returns
// the id to send (nothing when a further one is pending).
func (e *Engine[T]) ackCumulativeLocal(id messageid.MessageID) []*proto.MessageIdData {
	one := messageid.LastChunk(id)
	at := posOf(one)
	upTo := at // entries up to here are wholly acknowledged
	i, n := int(one.BatchIdx()), int(one.BatchSize())
	t := e.tracked[at]
	if i >= 0 && t != nil && t.batch > 0 {
		n = t.batch
	}
	var d *proto.MessageIdData
	if i < 0 || n <= 0 || i >= n-1 {
		d = entryData(one, nil)
	} else {
		upTo.entry--
		if t != nil && t.batch > 0 {
			for j := 0; j <= i; j++ {
				setBit(t.acked, j)
			}
		}
		switch {
		case e.o.BatchIndexAck:
			part := &tracked{batch: n, acked: make([]uint64, (n+63)/64)}
			for j := 0; j <= i; j++ {
				setBit(part.acked, j)
			}
			d = entryData(one, part.ackSet())
		case one.EntryID() > 0:
			d = entryData(messageid.New(one.LedgerID(), one.EntryID()-1, -1, e.o.Partition, 0), nil)
		}
	}
	for _, t := range e.tracked {
		if !upTo.less(t.last) {
			e.untrack(t)
		}
	}
	if d == nil {
		return nil
	}
	if c := e.acks.cumulative; c != nil &&
		(position{int64(d.GetLedgerId()), int64(d.GetEntryId())}).less(position{int64(c.GetLedgerId()), int64(c.GetEntryId())}) {
		return nil // an ack further ahead is pending
	}
	return []*proto.MessageIdData{d}
}

func datasOf(ids []messageid.ID) []*proto.MessageIdData {
	out := make([]*proto.MessageIdData, len(ids))
	for i, id := range ids {
		out[i] = entryData(id, nil)
	}
	return out
}

// ackNow acknowledges entries (grouped like any ack); readers never
// acknowledge.
func (e *Engine[T]) ackNow(ids []messageid.ID) {
	if e.o.Reader {
		return
	}
	for _, id := range ids {
		delete(e.tracked, posOf(id))
		e.acks.add(entryData(id, nil))
	}
	e.ackAdded()
}

// ackAdded flushes or schedules the group.
func (e *Engine[T]) ackAdded() {
	if e.o.AckGroupTime < 0 || e.acks.len() >= e.o.AckGroupSize {
		e.flushAcks()
		return
	}
	e.arm(&e.ackAlarm, e.o.Clock.Now().Add(e.o.AckGroupTime), e.flushAcks)
}

// flushAcks sends the grouped acknowledgments, if connected.
func (e *Engine[T]) flushAcks() {
	if e.cn == nil || e.acks.len() == 0 {
		return
	}
	if len(e.acks.order) > 0 {
		datas := make([]*proto.MessageIdData, 0, len(e.acks.order))
		for _, p := range e.acks.order {
			datas = append(datas, e.acks.individual[p])
		}
		e.sendAck(datas, proto.CommandAck_Individual, nil, nil)
	}
	if c := e.acks.cumulative; c != nil {
		e.sendAck([]*proto.MessageIdData{c}, proto.CommandAck_Cumulative, nil, nil)
	}
	e.acks.reset()
}

func (e *Engine[T]) ackCmd(datas []*proto.MessageIdData, typ proto.CommandAck_AckType, validation *proto.CommandAck_ValidationError, rid *uint64) *proto.BaseCommand {
	id := e.o.ConsumerID
	return &proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
		ConsumerId: &id, AckType: typ.Enum(), MessageId: datas, ValidationError: validation, RequestId: rid}}
}

func (e *Engine[T]) sendAck(datas []*proto.MessageIdData, typ proto.CommandAck_AckType, validation *proto.CommandAck_ValidationError, rid *uint64) {
	if e.cn == nil {
		return
	}
	if err := e.cn.Send(e.ackCmd(datas, typ, validation, rid)); err != nil {
		e.log.Debug("ack not sent", "err", err)
	}
}

// deferredAcks are chunk ids acknowledged before their message arrived:
// first chunk -> last chunk, bounded, oldest first.
type deferredAcks struct {
	m     map[position]position
	order []position
}

// add remembers first; it returns a position it had to forget.
func (d *deferredAcks) add(first, last position) (position, bool) {
	if _, ok := d.m[first]; ok {
		return position{}, false
	}
	d.m[first] = last
	d.order = append(d.order, first)
	if len(d.order) <= maxDeferredAcks {
		return position{}, false
	}
	old := d.order[0]
	d.order = d.order[1:]
	delete(d.m, old)
	return old, true
}

// take reports whether first was waiting, and forgets it.
func (d *deferredAcks) take(first position) bool {
	if _, ok := d.m[first]; !ok {
		return false
	}
	delete(d.m, first)
	d.order = slices.DeleteFunc(d.order, func(p position) bool { return p == first })
	return true
}
