package consumer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// filter drops messages before a start or seek point: by id (inclusive or
// exclusive; a chunk id stands for its whole message, placed at its last
// chunk) and by publish time. Once a message passes, it is off.
type filter struct {
	point     messageid.MessageID // nil: no id filter
	inclusive bool
	minTime   uint64 // publish time in ms; 0: no time filter
}

func (f *filter) set(point messageid.MessageID, inclusive bool) {
	f.point, f.inclusive = point, inclusive
	if point != nil && (isEarliest(point) || isLatest(point)) {
		f.point = nil // the broker positions the subscription
	}
}

// pass reports whether a message with this id and publish time is
// delivered.
func (f *filter) pass(id messageid.MessageID, publishTime uint64) bool {
	if f.minTime > 0 {
		if publishTime < f.minTime {
			return false
		}
		f.minTime = 0
	}
	if f.point == nil {
		return true
	}
	switch c := cmpPoint(id, f.point); {
	case c > 0:
		f.point = nil
		return true
	case c == 0:
		return f.inclusive
	}
	return false
}

// before reports whether an entry lies before the point (a straggler of a
// message that started before it).
func (f *filter) before(id messageid.ID, publishTime uint64) bool {
	if f.minTime > 0 && publishTime < f.minTime {
		return true
	}
	if f.point == nil {
		return false
	}
	c := cmpPoint(id, f.point)
	return c < 0 || c == 0 && !f.inclusive
}

// Seek moves the subscription to id. A chunk id (messageid.ChunkMessageID)
// moves it to its first chunk and delivers that whole message next,
// whatever StartInclusive says (PIP-107; the Java and official Go clients
// agree). Any other id delivers the message it names next with
// StartInclusive, the one after it without (as the official Go client).
// Messages of the old position still queued or arriving are dropped, and
// nothing before id is delivered. It returns once the consumer is
// subscribed again.
func (e *Engine[T]) Seek(ctx context.Context, id messageid.MessageID) error {
	return e.seek(ctx, id, time.Time{})
}

// SeekByTime moves the subscription to the first message published at or
// after t.
func (e *Engine[T]) SeekByTime(ctx context.Context, t time.Time) error {
	return e.seek(ctx, nil, t)
}

func (e *Engine[T]) seek(ctx context.Context, id messageid.MessageID, t time.Time) error {
	for {
		err := e.seekOnce(ctx, id, t)
		if !errors.Is(err, ErrNotConnected) {
			return err
		}
		// Reconnecting: wait for the subscription, then seek.
		var gen uint64
		if err := e.call(func() { gen = e.gen }); err != nil {
			return err
		}
		if err := e.waitReady(ctx, gen); err != nil {
			return fmt.Errorf("seek: %w", err)
		}
	}
}

func (e *Engine[T]) seekOnce(ctx context.Context, id messageid.MessageID, t time.Time) error {
	// A reader's subscription is made anew at the point; a durable one,
	// and any seek by time, needs the broker to move the cursor.
	viaBroker := !e.o.NonDurable || id == nil
	var cn *conn.Conn
	var gen uint64
	var refused error
	err := e.call(func() {
		switch {
		case e.state == stateClosed:
			refused = ErrClosed
			return
		case viaBroker && e.cn == nil:
			refused = fmt.Errorf("seek: %w", ErrNotConnected)
			return
		}
		e.flushAcks()
		cn = e.cn
		e.cn = nil
		e.gen++
		gen = e.gen
		e.state = stateSeeking
		e.resetDelivery()
		e.filter = filter{}
		e.byTime = id == nil
		if id != nil {
			incl := seekInclusive(id, e.o.StartInclusive)
			e.filter.set(id, incl)
			e.origin, e.originIncl = id, incl
		} else {
			// A reader's new subscription starts at the earliest message;
			// the filter drops those published before t.
			e.filter.minTime = uint64(t.UnixMilli())
			e.origin, e.originIncl = messageid.Earliest(), false
		}
	})
	if err != nil {
		return err
	}
	if refused != nil {
		return refused
	}
	var seekErr error
	if viaBroker {
		seekErr = e.seekOnBroker(ctx, cn, id, t)
	}
	// A broker that moved the cursor has closed the consumer already (its
	// CLOSE_CONSUMER comes before the SEEK's answer, as Pulsar's): closing
	// it again would only cost a round trip before subscribing.
	if cn != nil && cn.Consumes(e.o.ConsumerID) {
		e.closeOnBroker(ctx, cn)
	}
	// Subscribe again in any case: the engine goes on after a failed seek.
	// After a successful one the topic is where cn leads, so the
	// subscription goes there without a lookup.
	var via *conn.Conn
	if seekErr == nil {
		via = cn
	}
	e.do(func() {
		if e.gen == gen && e.state == stateSeeking {
			e.state = stateConnecting
			e.startConnect(0, via)
		}
	})
	if seekErr != nil {
		return fmt.Errorf("seek: %w", seekErr)
	}
	return e.waitReady(ctx, gen)
}

// seekInclusive reports whether a Seek to id delivers the message id names:
// always for a chunk id, else as StartInclusive says.
func seekInclusive(id messageid.MessageID, startInclusive bool) bool {
	_, chunked := id.(messageid.ChunkMessageID)
	return chunked || startInclusive
}

func (e *Engine[T]) seekOnBroker(ctx context.Context, cn *conn.Conn, id messageid.MessageID, t time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, e.o.OperationTimeout)
	defer cancel()
	cid, rid := e.o.ConsumerID, cn.NewRequestID()
	s := &proto.CommandSeek{ConsumerId: &cid, RequestId: &rid}
	if id != nil {
		s.MessageId = entryData(messageid.FirstChunk(id), nil)
	} else {
		ms := uint64(t.UnixMilli())
		s.MessagePublishTime = &ms
	}
	_, err := cn.Request(ctx, rid, &proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: s})
	return err
}

// resetDelivery forgets everything in flight for a seek: the queue, the
// incomplete chunked messages (silently: the broker starts over) and the
// redeliveries; messages already handed out stay tracked so that they can
// still be acknowledged.
func (e *Engine[T]) resetDelivery() {
	// Before the queue's buffers are kept as spares: what a receiver took
	// is handed out, not reused, and the rest can no longer be taken.
	e.recall()
	e.breakStreams(errors.New("the consumer was sought"), true)
	for _, m := range e.queue {
		e.bufs.keepSpare(m) // never handed out: its buffer serves the next (assembly.go)
	}
	e.clearQueue()
	e.asm.Reset()
	clear(e.firstChunk)
	for k, t := range e.tracked {
		if !t.handed {
			delete(e.tracked, k)
		}
	}
	// What the broker delivers from now on is read anew: it gets records
	// of its own, not joined with those of copies handed out before.
	e.epoch++
	e.nacks = nil
	e.timeouts = nil
	e.permits = 0
	e.lastOut = nil
	e.forgetSeen()
}

// GetLastMessageID asks the broker for the id of the topic's last message
// (ledger and entry -1 when it has none).
func (e *Engine[T]) GetLastMessageID(ctx context.Context) (messageid.ID, error) {
	id, _, err := e.lastMessageID(ctx)
	return id, err
}

// lastMessageID asks the broker for the id of the topic's last message and
// the subscription's mark-delete position, when the broker tells it.
func (e *Engine[T]) lastMessageID(ctx context.Context) (messageid.ID, *position, error) {
	resp, err := e.request(ctx, func(rid uint64) *proto.BaseCommand {
		cid := e.o.ConsumerID
		return &proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID.Enum(),
			GetLastMessageId: &proto.CommandGetLastMessageId{ConsumerId: &cid, RequestId: &rid}}
	})
	if err != nil {
		return messageid.ID{}, nil, fmt.Errorf("get last message id: %w", err)
	}
	r := resp.GetGetLastMessageIdResponse()
	d := r.GetLastMessageId()
	id := messageid.New(int64(d.GetLedgerId()), int64(d.GetEntryId()), d.GetBatchIndex(), e.o.Partition, 0)
	var md *position
	if m := r.GetConsumerMarkDeletePosition(); m != nil {
		md = &position{int64(m.GetLedgerId()), int64(m.GetEntryId())}
	}
	return id, md, nil
}

// HasNext reports whether a message is queued or the broker has one after
// the last handed out (or after the start point). After a seek by time,
// until a message is handed out, the broker's last id does not tell
// whether a message was published at or after the time: then HasNext is
// false when the subscription's mark-delete position (which Pulsar brokers
// send with the last id) is at or after the last id, and otherwise waits,
// within ctx, until the engine has received the entries through the last
// id, and reports whether one of them passed the time filter.
func (e *Engine[T]) HasNext(ctx context.Context) (bool, error) {
	var queued, byTime bool
	var last, origin messageid.MessageID
	var incl bool
	if err := e.call(func() {
		queued, last, origin, incl = len(e.queue) > 0 || len(e.parked) > 0, e.lastOut, e.origin, e.originIncl
		byTime = e.byTime && e.lastOut == nil
	}); err != nil {
		return false, err
	}
	if queued {
		return true, nil
	}
	lid, markDelete, err := e.lastMessageID(ctx)
	if err != nil {
		return false, err
	}
	if isEarliest(lid) {
		return false, nil
	}
	switch {
	case last != nil:
		return cmpPoint(lid, last) > 0, nil
	case byTime:
		if markDelete != nil && !markDelete.less(posOf(lid)) {
			return false, nil // everything through the last id is consumed
		}
		return e.waitSeen(ctx, posOf(lid))
	case origin == nil || isEarliest(origin):
		return true, nil
	case isLatest(origin):
		return false, nil
	case incl:
		return cmpPoint(lid, origin) >= 0, nil
	}
	return cmpPoint(lid, origin) > 0, nil
}

// waitSeen waits until a message is queued or handed out (true) or the
// engine has received every entry through last (false).
func (e *Engine[T]) waitSeen(ctx context.Context, last position) (bool, error) {
	for {
		progress := make(chan struct{})
		var has, done bool
		if err := e.call(func() {
			switch {
			case len(e.queue) > 0 || len(e.parked) > 0 || e.lastOut != nil:
				has, done = true, true
			case e.seenAny && !e.seen.less(last):
				done = true
			default:
				e.progress = append(e.progress, progress)
			}
		}); err != nil {
			return false, err
		}
		if done {
			return has, nil
		}
		select {
		case <-progress:
		case <-e.done:
			return false, ErrClosed
		case <-ctx.Done():
			return false, fmt.Errorf("has next: waiting for the entries through %d:%d: %w", last.ledger, last.entry, ctx.Err())
		}
	}
}

// sawEntry records an entry received from the broker (delivered, filtered
// or dropped) and wakes waitSeen.
func (e *Engine[T]) sawEntry(p position) {
	if !e.seenAny || e.seen.less(p) {
		e.seen, e.seenAny = p, true
	}
	e.wakeProgress()
}

// forgetSeen forgets the entries received (a seek or reconnect: the broker
// delivers again) and wakes waitSeen.
func (e *Engine[T]) forgetSeen() {
	e.seen, e.seenAny = position{}, false
	e.wakeProgress()
}

func (e *Engine[T]) wakeProgress() {
	for _, ch := range e.progress {
		close(ch)
	}
	e.progress = nil
}

// StartAtLastMessage resolves a start at Latest into the id of the topic's
// last message, so that a reconnect resumes there rather than at a later
// Latest; with inclusive set, the reader seeks to that message.
func (e *Engine[T]) StartAtLastMessage(ctx context.Context, inclusive bool) error {
	lid, err := e.GetLastMessageID(ctx)
	if err != nil || isEarliest(lid) {
		return err
	}
	if inclusive {
		return e.Seek(ctx, lid)
	}
	return e.call(func() {
		if e.lastOut == nil && e.origin != nil && isLatest(e.origin) {
			e.origin, e.originIncl = lid, false
		}
	})
}

// Unsubscribe deletes the subscription and closes the engine.
func (e *Engine[T]) Unsubscribe(ctx context.Context) error { return e.unsubscribe(ctx, false) }

// UnsubscribeForce deletes the subscription even while other consumers are
// attached to it (the broker disconnects them), and closes the engine.
func (e *Engine[T]) UnsubscribeForce(ctx context.Context) error { return e.unsubscribe(ctx, true) }

func (e *Engine[T]) unsubscribe(ctx context.Context, force bool) error {
	_ = e.call(e.flushAcks)
	_, err := e.request(ctx, func(rid uint64) *proto.BaseCommand {
		cid := e.o.ConsumerID
		return &proto.BaseCommand{Type: proto.BaseCommand_UNSUBSCRIBE.Enum(),
			Unsubscribe: &proto.CommandUnsubscribe{ConsumerId: &cid, RequestId: &rid, Force: &force}}
	})
	if err != nil {
		return fmt.Errorf("unsubscribe: %w", err)
	}
	e.Close()
	return nil
}
