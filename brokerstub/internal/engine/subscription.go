package engine

import (
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/cursor"
	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// BeforeFirst is the cursor position meaning "nothing acknowledged yet":
// the ledger's Next of it is the topic's first entry.
var beforeFirst = ledger.Position{Ledger: -1, Entry: -1}

// Subscription is a named cursor on a topic with the consumers attached to
// it and its dispatcher state. Owned by the topic goroutine.
type Subscription struct {
	t       *Topic
	name    string
	durable bool
	typ     proto.CommandSubscribe_SubType
	Cur     *cursor.Cursor

	// readPos is the last position normal dispatch has read; entries after
	// it have never been dispatched since the last reset.
	readPos ledger.Position
	// replay holds positions to deliver again, in order, before any new
	// entry (on Key_Shared, before any new entry of the same hash).
	replay keyshared.Replay
	// redeliveries counts how often each position was handed out again.
	redeliveries map[ledger.Position]uint32
	// scratch is the MESSAGE command reused for every delivery (outq.go).
	scratch messageScratch
	// delayed holds entries read before their deliver_at_time (delayed.go);
	// nil until the first one.
	delayed *delayedState

	Consumers []*Consumer
	active    *Consumer // Exclusive and Failover
	// rewindStop cancels the pending delayed rewind of a Failover
	// subscription whose active consumer changed (failover.go); nil when
	// none. rewindGen is bumped on every arm and cancel, so that a stale
	// timer does nothing.
	rewindStop func() bool
	rewindGen  uint64
	chunkOwner map[string]*Consumer // Shared: chunk uuid -> consumer of chunk 0
	next       int                  // Shared: round-robin cursor

	// Key_Shared: the dispatcher (nil for other types), its consumers by
	// dispatcher id, and the last id given out. See keyshared.go.
	ks     *keyshared.KeyShared
	ksByID map[keyshared.ConsumerID]*Consumer
	ksSeq  keyshared.ConsumerID

	// Unacked counts the messages its consumers hold unacknowledged;
	// blocked stops dispatch at the subscription's limit (unacked.go).
	Unacked int64
	Blocked bool
	// brokerBlocked stops dispatch while the broker is over its
	// MaxUnackedMessagesPerBroker and this subscription holds more than its
	// share (unacked_broker.go); run is the Shared consumer's current run
	// of entries (rr_batch.go).
	brokerBlocked bool
	run           rrRun
	// rl is its dispatch rate state (ratelimit_dispatch.go).
	rl subRates
}

// Consumer is one consumer attached to a subscription. Its fields are owned
// by the topic goroutine.
type Consumer struct {
	id       uint64
	name     string
	peer     peer // its connection
	sub      *Subscription
	typ      proto.CommandSubscribe_SubType
	priority int32
	epoch    uint64
	Permits  int64
	// pending holds the entries delivered to this consumer and not yet fully
	// acknowledged.
	pending map[ledger.Position]PendingEntry
	closed  bool
	// autoConsume is set for a consumer with an AUTO_CONSUME schema
	// (handle_schema.go).
	autoConsume bool

	// keyShared is the KeySharedMeta of a Key_Shared subscribe (may be nil:
	// AUTO_SPLIT, ordered); ksID is the consumer's id in the subscription's
	// Key_Shared dispatcher, 0 when it is not attached to one.
	keyShared *proto.KeySharedMeta
	ksID      keyshared.ConsumerID

	// Unacked counts the messages of pending; blocked is set at the
	// consumer's unacked limit (unacked.go).
	Unacked int64
	Blocked bool
	// readCompacted: the consumer reads the compacted view
	// (compaction_dispatch.go).
	readCompacted bool
}

// PendingEntry is one entry a consumer holds: its batch size and, on
// Key_Shared, its sticky key hash.
type PendingEntry struct {
	batch int32
	hash  int32
}

// cursorOptions are Pulsar's cursor defaults (mark-delete rate 1/s, 10,000
// persisted ranges and batch entries) with the broker's flush interval and
// clock.
func (t *Topic) cursorOptions() cursor.Options {
	o := cursor.DefaultOptions()
	o.FlushInterval = t.b.cfg.CursorFlushInterval
	o.Now = t.b.cfg.Clock.Now
	return o
}

// restoreSubscriptions recreates the durable subscriptions persisted for
// this topic, with their cursors as last flushed.
func (t *Topic) restoreSubscriptions() error {
	states, err := t.b.st.Cursors(t.name.Full)
	if err != nil {
		return err
	}
	for name, state := range states {
		if name == compactedViewKey {
			continue // the compacted view, not a subscription (compaction.go)
		}
		cur, err := cursor.Restore(state, t.Led, t.cursorOptions())
		if err != nil {
			t.b.log.Error("restore cursor; starting it from the first entry", "topic", t.name.Full, "sub", name, "err", err)
			cur = cursor.New(beforeFirst, t.Led, t.cursorOptions())
		}
		s := t.newSubscription(name, true, proto.CommandSubscribe_Exclusive, cur)
		t.Subs[name] = s
	}
	return nil
}

func (t *Topic) newSubscription(name string, durable bool, typ proto.CommandSubscribe_SubType, cur *cursor.Cursor) *Subscription {
	return &Subscription{
		t: t, name: name, durable: durable && t.np == nil, typ: typ, Cur: cur, // non-persistent: never saved
		readPos:      cur.MarkDelete(),
		redeliveries: map[ledger.Position]uint32{},
		chunkOwner:   map[string]*Consumer{},
	}
}

// startPosition returns the mark-delete position of a new subscription.
func (t *Topic) startPosition(m *proto.CommandSubscribe) ledger.Position {
	last, hasLast := t.Led.Last()
	if id := m.GetStartMessageId(); id != nil && !m.GetDurable() {
		l, e := int64(id.GetLedgerId()), int64(id.GetEntryId())
		switch {
		case l == int64(^uint64(0)>>1): // latest
			if hasLast {
				return last
			}
			return beforeFirst
		case l < 0: // earliest
			return beforeFirst
		case e >= 0:
			// As Pulsar: the start id is taken as a batch position, so the
			// cursor steps back one entry, the start entry is delivered and
			// the client discards what its inclusive/exclusive rule excludes.
			return ledger.Position{Ledger: l, Entry: e - 1}
		}
		return ledger.Position{Ledger: l, Entry: e}
	}
	if m.GetInitialPosition() == proto.CommandSubscribe_Earliest || !hasLast {
		return beforeFirst
	}
	return last
}

// addConsumer attaches cs; it returns a Pulsar error code and message when
// the subscription refuses it.
func (s *Subscription) addConsumer(cs *Consumer) (proto.ServerError, string, bool) {
	if len(s.Consumers) > 0 && s.typ != cs.typ {
		return proto.ServerError_ConsumerBusy, "subscription " + s.name + " is of a different type", false
	}
	if len(s.Consumers) > 0 && s.typ == proto.CommandSubscribe_Exclusive {
		return proto.ServerError_ConsumerBusy, "exclusive consumer is already connected to " + s.name, false
	}
	if code, msg := s.refuseSubscriptionConsumer(); msg != "" {
		return code, msg, false // limits.go
	}
	if cs.typ == proto.CommandSubscribe_Key_Shared {
		if code, msg, ok := s.addKeyShared(cs); !ok {
			return code, msg, false
		}
	} else {
		s.ks = nil
	}
	if s.typ != cs.typ {
		s.cancelRewind()
	}
	s.typ = cs.typ
	s.Consumers = append(s.Consumers, cs)
	if s.pickActive() {
		s.activeChanged()
	} else if s.active != nil && s.typ == proto.CommandSubscribe_Failover {
		s.notifyActive(cs)
	}
	return 0, "", true
}

// removeConsumer detaches cs and puts what it had not acknowledged back for
// redelivery.
func (s *Subscription) removeConsumer(cs *Consumer) {
	i := slices.Index(s.Consumers, cs)
	if i < 0 {
		return
	}
	s.Consumers = slices.Delete(s.Consumers, i, i+1)
	cs.closed = true
	s.t.subscriptionIdle(s) // subexpiry.go
	s.requeue(cs, nil)
	s.removeKeyShared(cs)
	for uuid, owner := range s.chunkOwner {
		if owner == cs {
			delete(s.chunkOwner, uuid)
		}
	}
	if !s.durable && len(s.Consumers) == 0 {
		delete(s.t.Subs, s.name)
		return
	}
	if s.pickActive() && len(s.Consumers) > 0 {
		s.activeChanged()
	}
	s.Dispatch()
}

// requeue moves cs's pending entries (all, or those in only) back to the
// replay queue, with their sticky key hashes, and counts the redelivery.
func (s *Subscription) requeue(cs *Consumer, only []ledger.Position) {
	move := func(p ledger.Position) {
		pe := cs.pending[p]
		s.Release(cs, p)
		s.redeliveries[p]++
		s.replay.Add(p, pe.hash)
	}
	if only == nil {
		for p := range cs.pending {
			move(p)
		}
		return
	}
	for _, p := range only {
		if _, ok := cs.pending[p]; ok {
			move(p)
		}
	}
}

// Release drops p from what cs holds; it reports whether cs held it. A
// consumer that stays attached tells the Key_Shared dispatcher, so that a
// hash draining at it can move on; one that left has been removed from the
// dispatcher already.
func (s *Subscription) Release(cs *Consumer, p ledger.Position) bool {
	pe, ok := cs.pending[p]
	if !ok {
		return false
	}
	delete(cs.pending, p)
	s.noteReleased(cs, int64(max(pe.batch, 1))) // unacked.go
	if s.ks != nil && cs.ksID != 0 && !cs.closed {
		s.ks.Released(cs.ksID, pe.hash)
	}
	return true
}

// Reset moves the subscription to pos (the next entry to deliver), with an
// optional batch ack set for it, and forgets every delivery in flight.
func (s *Subscription) Reset(pos ledger.Position, ackSet []int64) {
	s.Cur.Reset(pos, ackSet)
	s.readPos = s.Cur.MarkDelete()
	s.replay.Clear()
	s.clearDelayed()
	s.redeliveries = map[ledger.Position]uint32{}
	s.chunkOwner = map[string]*Consumer{}
	for _, cs := range s.Consumers {
		clear(cs.pending)
	}
	s.forgetUnacked()
	if s.ks != nil {
		s.ks.Forget()
	}
}
