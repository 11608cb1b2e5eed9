package engine

import (
	"slices"
	"sort"
	"strconv"

	"github.com/pulsargo/sdk/internal/murmur3"
	"github.com/pulsargo/sdk/internal/proto"
)

// This file holds the single-active-consumer dispatch of Exclusive and
// Failover subscriptions as Pulsar 4.x's AbstractDispatcherSingleActiveConsumer
// and PersistentDispatcherSingleActiveConsumer do it:
//
//   - The active consumer is chosen among the consumers of the highest
//     priority level (the lowest priority_level), ordered by name: a
//     partition's index modulo their number picks one; a non-partitioned
//     topic (or every topic, with ActiveConsumerFailoverConsistentHashing)
//     picks by a hash ring of their names, 100 points each, at the hash of
//     the topic's name.
//   - When the active consumer changes, the subscription rewinds: what any
//     consumer holds unacknowledged goes back to be delivered again, to the
//     new active consumer. On Failover that happens only after
//     ActiveConsumerFailoverDelay (Pulsar's
//     activeConsumerFailoverDelayTimeMillis, default 1 s), so that the old
//     active consumer can still acknowledge what it is processing; until
//     then nothing is dispatched, and the consumers are told who is active
//     (ACTIVE_CONSUMER_CHANGE, to every consumer) only when it happens. A
//     change while a rewind is pending does not postpone it.
//   - A Failover consumer that joins without changing the active consumer
//     is told at once, and alone, that it is not active — before the
//     broker answers its SUBSCRIBE, as Pulsar does.

// failoverRingReplicas is the number of points each consumer has on the
// hash ring of a non-partitioned topic (Pulsar's
// CONSUMER_CONSISTENT_HASH_REPLICAS).
const failoverRingReplicas = 100

// isSingleActive reports whether the subscription delivers to one active
// consumer (Exclusive and Failover).
func (s *Subscription) isSingleActive() bool {
	return s.typ == proto.CommandSubscribe_Exclusive || s.typ == proto.CommandSubscribe_Failover
}

// pickActive chooses the active consumer of an Exclusive or Failover
// subscription (see the top of this file) and reports whether it changed;
// callers then call activeChanged. With no consumers there is none.
func (s *Subscription) pickActive() bool {
	if !s.isSingleActive() || len(s.Consumers) == 0 {
		changed := s.active != nil
		s.active = nil
		return changed
	}
	sorted := slices.Clone(s.Consumers)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].priority != sorted[j].priority {
			return sorted[i].priority < sorted[j].priority
		}
		return sorted[i].name < sorted[j].name
	})
	n := 1
	for n < len(sorted) && sorted[n].priority == sorted[0].priority {
		n++
	}
	var idx int
	if p := s.t.name.Partition; p >= 0 && !s.t.b.cfg.ActiveConsumerFailoverConsistentHashing {
		idx = p % n
	} else {
		idx = ringPick(s.t.name.Full, sorted[:n])
	}
	next := sorted[idx]
	if next == s.active {
		return false
	}
	s.active = next
	return true
}

// ringPick returns the index in consumers of the one whose point on the
// hash ring follows the hash of topic (or the first point, past the last).
// Points are Murmur3 hashes of name+"0" … name+"99"; on a collision the
// later consumer's point wins, as in Pulsar's TreeMap.
func ringPick(topic string, consumers []*Consumer) int {
	type point struct {
		hash uint32
		idx  int
	}
	byHash := make(map[uint32]int, len(consumers)*failoverRingReplicas)
	for i, cs := range consumers {
		for j := range failoverRingReplicas {
			byHash[JavaHash(cs.name+strconv.Itoa(j))] = i
		}
	}
	ring := make([]point, 0, len(byHash))
	for h, i := range byHash {
		ring = append(ring, point{h, i})
	}
	sort.Slice(ring, func(a, b int) bool { return ring[a].hash < ring[b].hash })
	want := JavaHash(topic)
	k := sort.Search(len(ring), func(i int) bool { return ring[i].hash >= want })
	if k == len(ring) {
		k = 0
	}
	return ring[k].idx
}

// JavaHash is Pulsar's Murmur3_32Hash.makeHash of s's UTF-8 bytes: seed 0,
// the sign bit cleared.
func JavaHash(s string) uint32 { return murmur3.Sum32([]byte(s), 0) & 0x7fffffff }

// activeChanged is Pulsar's scheduleReadOnActiveConsumer: it rewinds the
// subscription for the new active consumer at once (Exclusive, or a
// Failover delay switched off), or after ActiveConsumerFailoverDelay on the
// broker's clock unless a rewind is pending already. It does not dispatch;
// callers do.
func (s *Subscription) activeChanged() {
	delay := s.t.b.cfg.ActiveConsumerFailoverDelay
	if s.typ != proto.CommandSubscribe_Failover || delay <= 0 {
		s.rewindActive()
		return
	}
	if s.rewindStop != nil {
		return
	}
	s.rewindGen++
	gen, t := s.rewindGen, s.t
	s.rewindStop = t.b.cfg.Clock.AfterFunc(delay, func() {
		t.Do(func() {
			if s.rewindGen != gen || s.rewindStop == nil {
				return
			}
			s.rewindStop = nil
			if t.Subs[s.name] != s || !s.isSingleActive() {
				return
			}
			s.rewindActive()
			s.Dispatch()
		})
	})
}

// rewindPending reports whether a Failover subscription waits for its
// delayed rewind; it dispatches nothing meanwhile.
func (s *Subscription) rewindPending() bool { return s.rewindStop != nil }

// cancelRewind drops a pending rewind (the subscription stopped being a
// Failover one).
func (s *Subscription) cancelRewind() {
	if s.rewindStop != nil {
		s.rewindStop()
		s.rewindStop = nil
	}
	s.rewindGen++
}

// rewindActive moves every entry that a consumer holds unacknowledged back
// for delivery (the cursor's rewind: they go to the active consumer before
// any newer entry) and, on Failover, tells every consumer whether it is the
// active one.
func (s *Subscription) rewindActive() {
	for _, cs := range s.Consumers {
		s.requeue(cs, nil)
	}
	if s.active != nil && s.typ == proto.CommandSubscribe_Failover {
		for _, cs := range s.Consumers {
			s.notifyActive(cs)
		}
	}
}

// notifyActive tells cs whether it is the active consumer of its Failover
// subscription (ACTIVE_CONSUMER_CHANGE).
func (s *Subscription) notifyActive(cs *Consumer) {
	id, active := cs.id, cs == s.active
	cs.peer.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACTIVE_CONSUMER_CHANGE.Enum(),
		ActiveConsumerChange: &proto.CommandActiveConsumerChange{ConsumerId: &id, IsActive: &active}})
}
