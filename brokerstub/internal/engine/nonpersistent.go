package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// Non-persistent topics, as Pulsar 4.x's NonPersistentTopic serves them:
// nothing is stored (the topic's ledger stays empty, in a store of its own,
// and no cursor is ever saved), so nothing survives an unload, Restart or
// Crash. A message goes, as it is published, to each subscription's
// consumer that the subscription type picks, if that consumer has permits;
// otherwise it is dropped and counted in the subscription's msgDropRate.
// Nothing is ever redelivered: acknowledgments and redelivery requests are
// accepted and change nothing, a seek succeeds and changes nothing, and a
// subscription goes away with its last consumer. GET_LAST_MESSAGE_ID is
// refused as Pulsar refuses it. Every message carries the id 0:0 (with the
// partition index), and so does every send receipt.

// NonPersistentDomain is the domain of a non-persistent topic's name.
const NonPersistentDomain = "non-persistent"

// npState is what a non-persistent topic keeps beyond a persistent one's
// state: the message drop rate of each subscription's dispatcher. Owned by
// the topic goroutine.
type npState struct {
	drops    map[*Subscription]*Rate
	pubDrops map[*Producer]*Rate // np_inflight.go
}

func newNPState() *npState { return &npState{drops: map[*Subscription]*Rate{}} }

// npMessageID is the position Pulsar gives every message of a
// non-persistent topic, in send receipts and deliveries alike.
var npMessageID = ledger.Position{Ledger: 0, Entry: 0}

// publishNonPersistent answers a SEND on a non-persistent topic and pushes
// the message to the subscriptions. As Pulsar, the receipt (0:0) goes
// first, then each subscription's dispatcher gets the message. Topic
// goroutine.
func (t *Topic) publishNonPersistent(p *Producer, seq, highest uint64, meta, payload []byte, num int32) {
	p.peer.Send(t.Receipt(p.id, seq, highest, npMessageID))
	t.countIn(p, num, len(payload))
	in := parseEntryInfo(ledger.Entry{Meta: meta, Payload: payload, NumMessages: num})
	for _, s := range t.Subs {
		s.pushNonPersistent(in, meta, payload)
	}
}

// pushNonPersistent hands one message to the consumer the subscription's
// type picks, or drops it (counting its messages) when that consumer has
// no permits. A subscription without consumers has no dispatcher in
// Pulsar, and a Key_Shared hash no consumer's range covers (STICKY) has no
// consumer: the message is released without being counted.
func (s *Subscription) pushNonPersistent(in *entryInfo, meta, payload []byte) {
	if len(s.Consumers) == 0 {
		return
	}
	cs, selected := s.npTarget(in)
	if !selected {
		return
	}
	n := int64(in.numMessages)
	if cs == nil || cs.Permits <= 0 {
		s.t.np.dropRate(s).Record(s.t.b.cfg.Clock.Now(), n)
		return
	}
	cs.Permits -= n
	s.countOut(cs, n, len(payload))
	s.writeEntry(cs, npMessageID, nil, ledger.Entry{Meta: meta, Payload: payload})
}

// npTarget is the consumer a message goes to if it has permits: the active
// consumer (Exclusive, Failover; nil when there is none), the consumer its
// key hash selects (Key_Shared; selected is false when no range covers
// the hash), or for Shared the next consumer with permits of the highest
// priority level (the lowest priorityLevel), round robin, nil when none
// has permits. Chunks get no special treatment, as in Pulsar's
// non-persistent dispatchers: on Shared the chunks of a message can go to
// different consumers.
func (s *Subscription) npTarget(in *entryInfo) (cs *Consumer, selected bool) {
	switch s.typ {
	case proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Failover:
		return s.active, true
	case proto.CommandSubscribe_Key_Shared:
		if s.ks == nil {
			return nil, false
		}
		id, ok := s.ks.Selector().Select(s.ks.Hash(in.murmur))
		if !ok {
			return nil, false
		}
		return s.ksByID[id], true
	}
	var best *Consumer
	bestAt := 0
	for i := range s.Consumers {
		at := (s.next + i) % len(s.Consumers)
		c := s.Consumers[at]
		if c.Permits > 0 && (best == nil || c.priority < best.priority) {
			best, bestAt = c, at
		}
	}
	if best != nil {
		s.next = (bestAt + 1) % len(s.Consumers)
	}
	return best, true
}

// dropRate returns the drop rate of s's dispatcher, forgetting those of
// subscriptions that went away.
func (np *npState) dropRate(s *Subscription) *Rate {
	r := np.drops[s]
	if r == nil {
		for old := range np.drops {
			if old.t.Subs[old.name] != old {
				delete(np.drops, old)
			}
		}
		r = &Rate{Start: s.t.adm.openedAt}
		np.drops[s] = r
	}
	return r
}
