package brokerstub

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// This file is the glue between a Key_Shared subscription and its
// dispatcher (internal/keyshared), which holds the selector, the draining
// hashes and every routing decision.

// keySharedConfig returns the dispatcher policy for a subscribe's
// KeySharedMeta (nil means AUTO_SPLIT, ordered, as Pulsar's default) and
// the broker's Key_Shared options.
func (t *topic) keySharedConfig(meta *proto.KeySharedMeta) keyshared.Config {
	o := t.b.cfg.KeyShared
	return keyshared.Config{
		Mode:                     meta.GetKeySharedMode(),
		AllowOutOfOrderDelivery:  meta.GetAllowOutOfOrderDelivery(),
		HashRangeAutoSplit:       o.HashRangeAutoSplit,
		ReplicaPoints:            o.ReplicaPoints,
		LookAheadPerConsumer:     o.LookAheadPerConsumer,
		LookAheadPerSubscription: o.LookAheadPerSubscription,
	}
}

// addKeyShared attaches cs to the subscription's Key_Shared dispatcher,
// which is created afresh when the subscription has no consumers; while it
// has some, a consumer with another mode or out-of-order setting is refused
// (ConsumerBusy), and the selector may refuse it (ConsumerAssignError, for
// instance overlapping sticky ranges), with Pulsar's messages.
func (s *subscription) addKeyShared(cs *consumer) (proto.ServerError, string, bool) {
	meta := cs.keyShared
	if len(s.consumers) == 0 || s.ks == nil {
		s.ks = keyshared.NewKeyShared(s.t.keySharedConfig(meta), &s.replay)
		s.ksByID = map[keyshared.ConsumerID]*consumer{}
		s.rewind()
	} else if err := s.ks.CheckPolicy(meta.GetKeySharedMode(), meta.GetAllowOutOfOrderDelivery()); err != nil {
		return proto.ServerError_ConsumerBusy, err.Error(), false
	}
	s.ksSeq++
	id := s.ksSeq
	var ranges []keyshared.Range
	for _, r := range meta.GetHashRanges() {
		ranges = append(ranges, keyshared.Range{Start: r.GetStart(), End: r.GetEnd()})
	}
	err := s.ks.Add(keyshared.Member{
		ID: id, Name: cs.name, Label: s.consumerLabel(cs), Ranges: ranges,
		Permits: cs.availablePermits, // 0 while blocked on unacked messages (unacked.go)
		Pending: func(yield func(int32) bool) {
			for _, pe := range cs.pending {
				if !yield(pe.hash) {
					return
				}
			}
		},
	})
	if err != nil {
		var ae *keyshared.AssignError
		if errors.As(err, &ae) {
			return proto.ServerError_ConsumerAssignError, ae.Message, false
		}
		return proto.ServerError_ServiceNotReady, err.Error(), false
	}
	cs.ksID = id
	s.ksByID[id] = cs
	return 0, "", true
}

// consumerLabel describes cs as Pulsar's Consumer.toString does, for the
// sticky-range conflict message.
func (s *subscription) consumerLabel(cs *consumer) string {
	return fmt.Sprintf("Consumer{subscription=PersistentSubscription{topic=%s, name=%s}, consumerId=%d, consumerName=%s, address=/%s}",
		s.t.name.Full, s.name, cs.id, cs.name, cs.peer.remoteAddr())
}

// removeKeyShared detaches cs, whose pending entries are back in the replay
// queue, from the dispatcher. When the last consumer leaves, the
// subscription rewinds to its mark-delete position, as Pulsar's dispatcher
// does.
func (s *subscription) removeKeyShared(cs *consumer) {
	if s.ks == nil || cs.ksID == 0 {
		return
	}
	s.ks.Remove(cs.ksID)
	delete(s.ksByID, cs.ksID)
	cs.ksID = 0
	if len(s.consumers) == 0 {
		s.ks.Reset()
		s.rewind()
	}
}

// rewind makes the next read start after the mark-delete position and
// empties the replay queue: every unacknowledged entry is read again, in
// order.
func (s *subscription) rewind() {
	s.readPos = s.cur.MarkDelete()
	s.replay.Clear()
	s.clearDelayed()
}

// ksEntry is what the dispatcher needs to know of an entry.
func (s *subscription) ksEntry(in *entryInfo) keyshared.Entry {
	return keyshared.Entry{Hash: s.ks.Hash(in.murmur), ChunkUUID: in.uuid, ChunkID: in.chunkID, NumChunks: in.numChunks}
}

// ksSource lets the dispatcher read and send a subscription's entries.
type ksSource struct{ s *subscription }

func (src ksSource) Entry(p ledger.Position) (keyshared.Entry, bool) {
	s := src.s
	if s.cur.IsAcked(p) || s.txnHeld(p) {
		return keyshared.Entry{}, false // acknowledged, or pending in a transaction (txn_topic.go)
	}
	e, ok := s.t.led.Get(p)
	if !ok {
		return keyshared.Entry{}, false
	}
	return s.ksEntry(s.t.info(e)), true
}

func (src ksSource) Next() (ledger.Position, keyshared.Entry, bool) {
	s := src.s
	for {
		p, ok := s.nextUnread()
		if !ok {
			return p, keyshared.Entry{}, false
		}
		s.readPos = p
		e, _ := s.t.led.Get(p)
		in := s.t.info(e)
		if s.holdDelayed(p, in) {
			continue // held for later (delayed.go), blocking nothing
		}
		return p, s.ksEntry(in), true
	}
}

func (src ksSource) Send(id keyshared.ConsumerID, p ledger.Position, ent keyshared.Entry) {
	s := src.s
	e, _ := s.t.led.Get(p)
	s.deliver(s.ksByID[id], e, s.t.info(e), ent.Hash)
}

// ksSnapshot is a Key_Shared subscription's dispatcher, taken on the
// topic goroutine: what Broker.KeyShared (keyshared_inspect.go) and the
// console show.
type ksSnapshot struct {
	mode           string // "AUTO_SPLIT" or "STICKY"
	outOfOrder     bool   // AllowOutOfOrderDelivery
	selector       string // after Pulsar's classes (KeySharedState.Selector)
	hashRange      keyshared.Range
	consumers      []ksConsumerSnapshot // in the order they attached
	replaySize     int
	lookAheadLimit int
	readPos        ledger.Position
}

// ksConsumerSnapshot is one consumer of a ksSnapshot.
type ksConsumerSnapshot struct {
	id       uint64
	name     string
	ranges   []keyshared.Range // in hash order
	permits  int64
	pending  int
	draining []keyshared.DrainingHash
}

// keySharedSnapshot takes the snapshot of s, a Key_Shared subscription.
// Topic goroutine.
func (s *subscription) keySharedSnapshot() ksSnapshot {
	cfg, sel := s.ks.Config(), s.ks.Selector()
	out := ksSnapshot{
		mode:           cfg.Mode.String(),
		outOfOrder:     cfg.AllowOutOfOrderDelivery,
		hashRange:      sel.KeyHashRange(),
		replaySize:     s.replay.Len(),
		lookAheadLimit: s.ks.LookAheadLimit(),
		readPos:        s.readPos,
	}
	switch sel.(type) {
	case *keyshared.Consistent:
		out.selector = "ConsistentHashing"
	case *keyshared.AutoSplit:
		out.selector = "HashRangeAutoSplit"
	default:
		out.selector = "HashRangeExclusive"
	}
	ranges := map[keyshared.ConsumerID][]keyshared.Range{}
	for _, a := range sel.Assignments() {
		ranges[a.Consumer] = append(ranges[a.Consumer], a.Range)
	}
	for _, cs := range s.consumers {
		out.consumers = append(out.consumers, ksConsumerSnapshot{id: cs.id, name: cs.name, ranges: ranges[cs.ksID],
			permits: cs.permits, pending: len(cs.pending), draining: s.ks.Draining(cs.ksID)})
	}
	return out
}

// keySharedOf takes the snapshot of a Key_Shared subscription (Broker.KeyShared).
func (b *engine) keySharedOf(topic, subscription string) (ksSnapshot, error) {
	var out ksSnapshot
	name, err := parseTopic(topic)
	if err != nil {
		return out, err
	}
	t, err := b.getTopic(name, false)
	if err != nil {
		return out, err
	}
	var found, keyShared bool
	callErr := t.call(func() {
		s := t.subs[subscription]
		if s == nil {
			return
		}
		found = true
		if s.ks == nil || s.typ != proto.CommandSubscribe_Key_Shared {
			return
		}
		keyShared = true
		out = s.keySharedSnapshot()
	})
	switch {
	case callErr != nil:
		return out, callErr
	case !found:
		return out, fmt.Errorf("%w: %s on %s", ErrNoSubscription, subscription, name.Full)
	case !keyShared:
		return out, fmt.Errorf("%w: %s on %s", ErrNotKeyShared, subscription, name.Full)
	}
	return out, nil
}
