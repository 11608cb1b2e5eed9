package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// Stats builds Pulsar's SubscriptionStats. Topic goroutine.
func (s *Subscription) Stats(o StatsOptions) *SubscriptionStats {
	backlog, backlogBytes := s.backlogOf()
	cons := []*consumerStats{}
	var unacked int64
	for _, cs := range s.Consumers {
		ci := s.t.adm.consumers[cs]
		if ci == nil {
			ci = &clientInfo{}
		}
		var n int64
		for _, pe := range cs.pending {
			n += int64(max(pe.batch, 1))
		}
		unacked += n
		if o.NoConsumers {
			continue
		}
		cons = append(cons, &consumerStats{
			ConsumerName: cs.name, AvailablePermits: max(cs.Permits, 0), UnackedMessages: n,
			BlockedConsumerOnUnackedMsgs: cs.Blocked,
			MsgOutCounter:                ci.msgs, BytesOutCounter: ci.bytes,
			Address: ci.address, ConnectedSince: millis(ci.since), ClientVersion: ci.clientVersion,
			Metadata: ci.metadata, PriorityLevel: cs.priority, LastConsumedFlowTimestamp: ci.lastFlow,
		})
	}
	sc := s.t.adm.subs[s.name]
	if sc == nil {
		sc = &counter{}
	}
	st := &SubscriptionStats{
		MsgOutCounter: sc.msgs, BytesOutCounter: sc.bytes,
		MsgBacklog: backlog, MsgBacklogNoDelayed: backlog, BacklogSize: backlogBytes,
		UnackedMessages: unacked, Type: subTypeNames[s.typ],
		Consumers: cons, IsDurable: s.durable,
		BlockedSubscriptionOnUnackedMsgs:   s.Blocked || s.brokerBlocked,
		NonContiguousDeletedMessagesRanges: len(s.Cur.Current().Ranges),
		SubscriptionProperties:             map[string]string{},
		ConsumersAfterMarkDeletePosition:   map[string]string{},
	}
	if s.active != nil {
		name := s.active.name
		st.ActiveConsumerName = &name
	}
	if next, ok := s.Cur.NextUnacked(s.Cur.MarkDelete()); ok {
		if e, ok := s.t.Led.Get(next); ok {
			pt := e.PublishTime
			st.EarliestMsgPublishTimeInBacklog = &pt
		}
	}
	return st
}

// addNonPersistentStats turns the TopicStats of a non-persistent topic
// into Pulsar's NonPersistentTopicStats: msgDropRate on the topic, each
// publisher and each subscription, and a Key_Shared subscription's
// keySharedMode, without what Pulsar leaves unset there. The topic's own
// msgDropRate is 0: Pulsar 4.x never sets it on a topic's stats
// (partitioned stats sum it). A publisher's counts what was dropped because
// its connection had more than
// Gates.MaxConcurrentNonPersistentMessagePerConnection sends in flight
// (np_inflight.go). Topic goroutine; a no-op on a persistent topic.
func (t *Topic) addNonPersistentStats(st *TopicStats) {
	if t.np == nil {
		return
	}
	now := t.b.cfg.Clock.Now()
	st.MsgDropRate = new(0.0)
	// Pulsar sets neither on a non-persistent topic (no managed ledger, no
	// deduplication); its JSON leaves out what is null.
	st.TopicCreationTimeStamp = 0
	st.DeduplicationStatus = ""
	for _, p := range st.Publishers {
		p.MsgDropRate = new(t.publisherDropValue(p.ProducerName))
	}
	for name, ss := range st.Subscriptions {
		ss.MsgDropRate = new(0.0)
		ss.ActiveConsumerName = nil // not in a NonPersistentSubscription's stats
		s := t.Subs[name]
		if s == nil {
			continue
		}
		if r := t.np.drops[s]; r != nil {
			ss.MsgDropRate = new(r.Value(now))
		}
		if s.typ == proto.CommandSubscribe_Key_Shared && s.ks != nil {
			ss.KeySharedMode = ksModeNames[s.ks.Config().Mode]
		}
	}
}

// InternalStats builds Pulsar's PersistentTopicInternalStats. Topic
// goroutine.
func (t *Topic) InternalStats() *InternalStats {
	segs := t.Led.Segments()
	ledgers := []ledgerInfo{}
	var total int64
	curEntries, curSize := int64(0), int64(0)
	for _, s := range segs {
		ledgers = append(ledgers, ledgerInfo{LedgerID: s.ID, Entries: int64(s.Entries), Size: s.Size})
		total += s.Size
		if s.ID == t.Led.CurrentLedger() {
			curEntries, curSize = int64(s.Entries), s.Size
		}
	}
	if len(segs) == 0 || segs[len(segs)-1].ID != t.Led.CurrentLedger() {
		ledgers = append(ledgers, ledgerInfo{LedgerID: t.Led.CurrentLedger()})
	}
	last := fmt.Sprintf("%d:-1", t.Led.CurrentLedger())
	if p, ok := t.Led.Last(); ok {
		last = PosString(p)
	}
	cursors := map[string]*cursorStats{}
	for name, s := range t.Subs {
		cur := s.Cur.Current()
		var ranges []string
		for _, r := range cur.Ranges {
			ranges = append(ranges, fmt.Sprintf("(%s..%s]", PosString(justBeforePos(r[0])), PosString(r[1])))
		}
		backlog, _ := s.backlogOf()
		read, _ := t.Led.Next(s.readPos)
		cursors[name] = &cursorStats{
			MarkDeletePosition: PosString(s.Cur.MarkDelete()), ReadPosition: PosString(read),
			MessagesConsumedCounter: t.adm.in.msgs - backlog,
			CursorLedger:            -1, CursorLedgerLastEntry: -1,
			IndividuallyDeletedMessages: "[" + strings.Join(ranges, ", ") + "]",
			State:                       "Open", Active: len(s.Consumers) > 0,
			NumberOfEntriesSinceFirstNotAckedMessage: backlog, TotalNonContiguousDeletedMessagesRange: len(ranges),
			Properties: map[string]int64{},
		}
	}
	n := int64(t.Led.Len())
	return &InternalStats{
		EntriesAddedCounter: n, NumberOfEntries: n, TotalSize: total,
		CurrentLedgerEntries: curEntries, CurrentLedgerSize: curSize,
		LastConfirmedEntry: last, State: "LedgerOpened", Ledgers: ledgers, Cursors: cursors,
		SchemaLedgers: []ledgerInfo{}, CompactedLedger: ledgerInfo{LedgerID: -1, Entries: -1, Size: -1},
	}
}

// Stats builds Pulsar's TopicStats for the topic. Topic goroutine.
func (t *Topic) Stats(o StatsOptions) *TopicStats {
	t.Prune()
	pubs := []*PublisherStats{}
	for p := range t.producers {
		if o.NoPublishers {
			break
		}
		pi := t.adm.producers[p]
		if pi == nil {
			pi = &clientInfo{}
		}
		pubs = append(pubs, &PublisherStats{
			AccessMode: "Shared", ProducerID: p.id, ProducerName: p.name,
			MsgInCounter: pi.msgs, BytesInCounter: pi.bytes,
			Address: pi.address, ConnectedSince: millis(pi.since), ClientVersion: pi.clientVersion,
			Metadata: pi.metadata, SupportsPartialProducer: t.supportsPartial(p),
		})
	}
	slices.SortFunc(pubs, ByProducerName) // as Pulsar lists them (admin_stats_publishers.go)
	subs := map[string]*SubscriptionStats{}
	var backlogSize int64
	for name, s := range t.Subs {
		st := s.Stats(o)
		subs[name] = st
		backlogSize += st.BacklogSize
	}
	st := &TopicStats{
		MsgInCounter: t.adm.in.msgs, BytesInCounter: t.adm.in.bytes,
		MsgOutCounter: t.adm.out.msgs, BytesOutCounter: t.adm.out.bytes,
		StorageSize: t.storageSize(), BacklogSize: backlogSize,
		Publishers: pubs, Subscriptions: subs, Replication: map[string]struct{}{},
		DeduplicationStatus: "Disabled",
	}
	// topicCreationTimeStamp: when the first entry was stored, else when
	// the topic was loaded (Pulsar: when its managed ledger was created).
	created := t.adm.openedAt.UnixMilli()
	if first, ok := t.Led.First(); ok {
		if e, ok := t.Led.Get(first); ok && e.BrokerTimestamp > 0 {
			created = min(created, int64(e.BrokerTimestamp))
		}
	}
	st.TopicCreationTimeStamp = created
	if last, ok := t.Led.Last(); ok {
		if e, ok := t.Led.Get(last); ok {
			st.LastPublishTimestamp = int64(e.BrokerTimestamp)
		}
	}
	t.addNonPersistentStats(st) // below
	return st
}

// supportsPartial is a publisher's supportsPartialProducer for its stats.
func (t *Topic) supportsPartial(p *Producer) bool {
	return t.b.cfg.Gates.AggregatePublisherStatsByProducerName && p.peer.PartialProducer()
}

func millis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// StatsOptions are the stats endpoints' excludePublishers and
// excludeConsumers.
type StatsOptions struct{ NoPublishers, NoConsumers bool }

// justBeforePos is the position just before p within its ledger, as
// Pulsar writes the open end of an acknowledged range.
func justBeforePos(p ledger.Position) ledger.Position {
	return ledger.Position{Ledger: p.Ledger, Entry: p.Entry - 1}
}

// ksModeNames are Pulsar's KeySharedMode names, as the stats write them.
var ksModeNames = map[proto.KeySharedMode]string{
	proto.KeySharedMode_AUTO_SPLIT: "AUTO_SPLIT", proto.KeySharedMode_STICKY: "STICKY",
}

// ByProducerName orders publisher stats by producerName.
func ByProducerName(a, b *PublisherStats) int { return cmp.Compare(a.ProducerName, b.ProducerName) }
