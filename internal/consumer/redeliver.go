package consumer

import (
	"errors"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// nackItem is a redelivery to ask for at a time.
type nackItem struct {
	at  time.Time
	ids []messageid.ID
}

// timeoutItem is an ack-timeout deadline of a tracked message.
type timeoutItem struct {
	at  int64 // Unix nanos
	key position
}

// alarm is one timer of the loop; a fired alarm that was re-armed since is
// ignored.
type alarm struct {
	at   time.Time
	seq  uint64
	stop func() bool
}

// arm makes f run on the loop at (or after) at, unless the alarm is already
// due earlier.
func (e *Engine[T]) arm(a *alarm, at time.Time, f func()) {
	if a.stop != nil && !a.at.After(at) {
		return
	}
	if a.stop != nil {
		a.stop()
	}
	a.seq++
	seq := a.seq
	a.at = at
	a.stop = e.o.Clock.AfterFunc(max(0, at.Sub(e.o.Clock.Now())), func() {
		e.do(func() {
			if a.seq != seq {
				return
			}
			a.stop = nil
			f()
		})
	})
}

func (e *Engine[T]) stopAlarms() {
	for _, a := range []*alarm{&e.ackAlarm, &e.nackAlarm, &e.timeoutAlarm, &e.expiryAlarm} {
		if a.stop != nil {
			a.stop()
			a.stop = nil
		}
		a.seq++
	}
}

// Nack asks for the redelivery of the message id names (every chunk of a
// chunked message; the whole entry of a batched one) after NackDelay.
func (e *Engine[T]) Nack(id messageid.MessageID) {
	e.o.Metrics.Add(api.MetricNacks, 1)
	e.do(func() {
		if e.nackStream(id) {
			return
		}
		e.redeliverLater(e.entriesOf(id))
		e.gaveBack(id)
	})
}

// nackStream gives back a streamed message whose chunks are still coming,
// as closing its stream does; it reports whether id named one.
func (e *Engine[T]) nackStream(id messageid.MessageID) bool {
	t := e.tracked[posOf(messageid.FirstChunk(id))]
	if t == nil || t.stream == nil || t.stream.done {
		return false
	}
	e.streamAborted(t.stream, errors.New("negatively acknowledged"))
	return true
}

// entriesOf returns the entries holding the message id names.
func (e *Engine[T]) entriesOf(id messageid.MessageID) []messageid.ID {
	first := messageid.FirstChunk(id)
	if t := e.tracked[posOf(first)]; t != nil {
		t.timeout = 0
		return t.ids(e.o.Partition)
	}
	if c, ok := id.(messageid.ChunkMessageID); ok {
		return []messageid.ID{c.FirstChunkID().Entry(), c.LastChunkID().Entry()}
	}
	return []messageid.ID{first.Entry()}
}

// NackAfter is Nack with its own delay (a nack backoff policy's) instead
// of NackDelay.
func (e *Engine[T]) NackAfter(id messageid.MessageID, delay time.Duration) {
	e.o.Metrics.Add(api.MetricNacks, 1)
	e.do(func() {
		if e.nackStream(id) {
			return
		}
		e.redeliverAfter(e.entriesOf(id), delay)
		e.gaveBack(id)
	})
}

// sharedSub reports whether the broker may redeliver a message given back
// to another consumer of the subscription.
func (e *Engine[T]) sharedSub() bool {
	return e.o.SubType == proto.CommandSubscribe_Shared || e.o.SubType == proto.CommandSubscribe_Key_Shared
}

// gaveBack notes that the message id names was given back for redelivery.
// On Shared and Key_Shared its redelivery may go to another consumer, and
// no ack of it would then come here: the record of a message that is not
// a batch is forgotten at once (a redelivered copy gets a new one), and a
// batch's record once each of its messages is acknowledged or given back
// (see ackLocal), rather than staying for good.
func (e *Engine[T]) gaveBack(id messageid.MessageID) {
	if !e.sharedSub() || e.nonPersistent() {
		return
	}
	t := e.tracked[posOf(messageid.FirstChunk(id))]
	switch i := int(messageid.FirstChunk(id).BatchIdx()); {
	case t == nil:
	case t.batch == 0:
		e.untrack(t)
	case i >= 0 && i < t.batch:
		setBit(t.nacked, i)
		if e.allDone(t) {
			e.untrack(t)
		}
	}
}

// redeliverLater schedules a redelivery request after NackDelay.
func (e *Engine[T]) redeliverLater(ids []messageid.ID) { e.redeliverAfter(ids, e.o.NackDelay) }

// redeliverAfter schedules a redelivery request after delay, its time
// trimmed to NackPrecisionBit; a request due at the time of the last one
// joins it.
func (e *Engine[T]) redeliverAfter(ids []messageid.ID, delay time.Duration) {
	at := trimNackTime(e.o.Clock.Now().Add(max(delay, 0)), e.o.NackPrecisionBit)
	if n := len(e.nacks); n > 0 && e.nacks[n-1].at.Equal(at) {
		e.nacks[n-1].ids = append(e.nacks[n-1].ids, ids...)
	} else {
		e.nacks = append(e.nacks, nackItem{at: at, ids: ids})
	}
	e.arm(&e.nackAlarm, at, e.nackDue)
}

// trimNackTime clears the low bits of at in Unix milliseconds, as the
// official client's nack tracker: at rounded down to a multiple of 2^bits
// ms (bits <= 0: at unchanged; at most 62 bits are cleared).
func trimNackTime(at time.Time, bits int64) time.Time {
	if bits <= 0 {
		return at
	}
	bits = min(bits, 62)
	return time.UnixMilli(at.UnixMilli() &^ (int64(1)<<bits - 1))
}

// nackDue sends the redeliveries whose time has come.
func (e *Engine[T]) nackDue() {
	now := e.o.Clock.Now()
	var due []messageid.ID
	keep := e.nacks[:0]
	next := time.Time{}
	for _, n := range e.nacks {
		if !n.at.After(now) {
			due = append(due, n.ids...)
			continue
		}
		keep = append(keep, n)
		if next.IsZero() || n.at.Before(next) {
			next = n.at
		}
	}
	e.nacks = keep
	e.redeliver(due)
	if len(due) > 0 && e.cn != nil && e.o.NackSent != nil {
		e.o.NackSent(due)
	}
	if !next.IsZero() {
		e.arm(&e.nackAlarm, next, e.nackDue)
	}
}

// redeliver asks the broker to redeliver entries now.
func (e *Engine[T]) redeliver(ids []messageid.ID) {
	if len(ids) == 0 || e.cn == nil {
		return // after a reconnect the broker redelivers everything anyway
	}
	cid := e.o.ConsumerID
	_ = e.cn.Send(&proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(),
		RedeliverUnacknowledgedMessages: &proto.CommandRedeliverUnacknowledgedMessages{
			ConsumerId: &cid, MessageIds: datasOf(ids)}})
}

// startAckTimeout marks the message handed out and starts its ack timeout.
func (e *Engine[T]) startAckTimeout(id messageid.MessageID) {
	t := e.tracked[posOf(messageid.FirstChunk(id))]
	if t == nil {
		return
	}
	t.handed = true
	if e.o.AckTimeout <= 0 || t.timeout != 0 {
		return
	}
	at := e.o.Clock.Now().Add(e.o.AckTimeout)
	t.timeout = at.UnixNano()
	e.timeouts = append(e.timeouts, timeoutItem{at: t.timeout, key: t.key})
	e.arm(&e.timeoutAlarm, at, e.ackTimeoutDue)
}

// ackTimeoutDue redelivers the messages whose ack timeout passed.
func (e *Engine[T]) ackTimeoutDue() {
	now := e.o.Clock.Now().UnixNano()
	var due []messageid.ID
	for len(e.timeouts) > 0 && e.timeouts[0].at <= now {
		it := e.timeouts[0]
		e.timeouts = e.timeouts[1:]
		if t := e.tracked[it.key]; t != nil && t.timeout == it.at {
			t.timeout = 0
			due = append(due, t.ids(e.o.Partition)...)
			if e.sharedSub() {
				e.untrack(t) // it may come back to another consumer (see gaveBack)
			}
		}
	}
	if len(due) > 0 {
		e.log.Debug("ack timeout: asking for redelivery", "entries", len(due))
		e.redeliver(due)
	}
	if len(e.timeouts) > 0 {
		e.arm(&e.timeoutAlarm, time.Unix(0, e.timeouts[0].at), e.ackTimeoutDue)
	}
}

// armExpiry checks incomplete chunked messages for expiry while there are
// any.
func (e *Engine[T]) armExpiry() {
	after := e.asm.Options().ExpireAfter
	if n, _ := e.asm.Pending(); (n == 0 && len(e.streams) == 0) || after < 0 {
		return
	}
	e.arm(&e.expiryAlarm, e.o.Clock.Now().Add(max(after/4, time.Millisecond)), e.expire)
}

func (e *Engine[T]) expire() {
	for _, d := range e.asm.Expire() {
		delete(e.firstChunk, d.UUID)
		e.giveUp(d.UUID, d.ChunkIDs, d.Reason)
	}
	e.expireStreams()
	e.armExpiry()
}
