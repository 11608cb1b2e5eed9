package engine

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
func (t *Topic) keySharedConfig(meta *proto.KeySharedMeta) keyshared.Config {
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
func (s *Subscription) addKeyShared(cs *Consumer) (proto.ServerError, string, bool) {
	meta := cs.keyShared
	if len(s.Consumers) == 0 || s.ks == nil {
		s.ks = keyshared.NewKeyShared(s.t.keySharedConfig(meta), &s.replay)
		s.ksByID = map[keyshared.ConsumerID]*Consumer{}
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
func (s *Subscription) consumerLabel(cs *Consumer) string {
	return fmt.Sprintf("Consumer{subscription=PersistentSubscription{topic=%s, name=%s}, consumerId=%d, consumerName=%s, address=/%s}",
		s.t.name.Full, s.name, cs.id, cs.name, cs.peer.RemoteAddr())
}

// removeKeyShared detaches cs, whose pending entries are back in the replay
// queue, from the dispatcher. When the last consumer leaves, the
// subscription rewinds to its mark-delete position, as Pulsar's dispatcher
// does.
func (s *Subscription) removeKeyShared(cs *Consumer) {
	if s.ks == nil || cs.ksID == 0 {
		return
	}
	s.ks.Remove(cs.ksID)
	delete(s.ksByID, cs.ksID)
	cs.ksID = 0
	if len(s.Consumers) == 0 {
		s.ks.Reset()
		s.rewind()
	}
}

// rewind makes the next read start after the mark-delete position and
// empties the replay queue: every unacknowledged entry is read again, in
// order.
func (s *Subscription) rewind() {
	s.readPos = s.Cur.MarkDelete()
	s.replay.Clear()
	s.clearDelayed()
}

// ksEntry is what the dispatcher needs to know of an entry.
func (s *Subscription) ksEntry(in *entryInfo) keyshared.Entry {
	return keyshared.Entry{Hash: s.ks.Hash(in.murmur), ChunkUUID: in.uuid, ChunkID: in.chunkID, NumChunks: in.numChunks}
}

// ksSource lets the dispatcher read and send a subscription's entries.
type ksSource struct{ s *Subscription }

func (src ksSource) Entry(p ledger.Position) (keyshared.Entry, bool) {
	s := src.s
	if s.Cur.IsAcked(p) || s.txnHeld(p) {
		return keyshared.Entry{}, false // acknowledged, or pending in a transaction (txn_topic.go)
	}
	e, ok := s.t.Led.Get(p)
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
		e, _ := s.t.Led.Get(p)
		in := s.t.info(e)
		if s.holdDelayed(p, in) {
			continue // held for later (delayed.go), blocking nothing
		}
		return p, s.ksEntry(in), true
	}
}

func (src ksSource) Send(id keyshared.ConsumerID, p ledger.Position, ent keyshared.Entry) {
	s := src.s
	e, _ := s.t.Led.Get(p)
	s.deliver(s.ksByID[id], e, s.t.info(e), ent.Hash)
}

// KsSnapshot is a Key_Shared subscription's dispatcher, taken on the
// topic goroutine: what Broker.KeyShared (keyshared_inspect.go) and the
// console show.
type KsSnapshot struct {
	Mode           string // "AUTO_SPLIT" or "STICKY"
	OutOfOrder     bool   // AllowOutOfOrderDelivery
	Selector       string // after Pulsar's classes (KeySharedState.Selector)
	HashRange      keyshared.Range
	Consumers      []ksConsumerSnapshot // in the order they attached
	ReplaySize     int
	LookAheadLimit int
	ReadPos        ledger.Position
}

// ksConsumerSnapshot is one consumer of a ksSnapshot.
type ksConsumerSnapshot struct {
	Id       uint64
	Name     string
	Ranges   []keyshared.Range // in hash order
	Permits  int64
	Pending  int
	Draining []keyshared.DrainingHash
}

// keySharedSnapshot takes the snapshot of s, a Key_Shared subscription.
// Topic goroutine.
func (s *Subscription) keySharedSnapshot() KsSnapshot {
	cfg, sel := s.ks.Config(), s.ks.Selector()
	out := KsSnapshot{
		Mode:           cfg.Mode.String(),
		OutOfOrder:     cfg.AllowOutOfOrderDelivery,
		HashRange:      sel.KeyHashRange(),
		ReplaySize:     s.replay.Len(),
		LookAheadLimit: s.ks.LookAheadLimit(),
		ReadPos:        s.readPos,
	}
	switch sel.(type) {
	case *keyshared.Consistent:
		out.Selector = "ConsistentHashing"
	case *keyshared.AutoSplit:
		out.Selector = "HashRangeAutoSplit"
	default:
		out.Selector = "HashRangeExclusive"
	}
	ranges := map[keyshared.ConsumerID][]keyshared.Range{}
	for _, a := range sel.Assignments() {
		ranges[a.Consumer] = append(ranges[a.Consumer], a.Range)
	}
	for _, cs := range s.Consumers {
		out.Consumers = append(out.Consumers, ksConsumerSnapshot{Id: cs.id, Name: cs.name, Ranges: ranges[cs.ksID],
			Permits: cs.Permits, Pending: len(cs.pending), Draining: s.ks.Draining(cs.ksID)})
	}
	return out
}

// KeySharedOf takes the snapshot of a Key_Shared subscription (Broker.KeyShared).
func (b *Engine) KeySharedOf(topic, subscription string) (KsSnapshot, error) {
	var out KsSnapshot
	name, err := ParseTopic(topic)
	if err != nil {
		return out, err
	}
	t, err := b.GetTopic(name, false)
	if err != nil {
		return out, err
	}
	var found, keyShared bool
	callErr := t.Call(func() {
		s := t.Subs[subscription]
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
