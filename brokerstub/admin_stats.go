package brokerstub

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

func millis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// statsOptions are the stats endpoints' excludePublishers and
// excludeConsumers.
type statsOptions struct{ noPublishers, noConsumers bool }

// stats builds Pulsar's TopicStats for the topic. Topic goroutine.
func (t *topic) stats(o statsOptions) map[string]any {
	t.prune()
	pubs := []map[string]any{}
	for p := range t.producers {
		if o.noPublishers {
			break
		}
		pi := t.adm.producers[p]
		if pi == nil {
			pi = &clientInfo{}
		}
		pubs = append(pubs, map[string]any{
			"accessMode": "Shared", "producerId": p.id, "producerName": p.name,
			"msgRateIn": 0.0, "msgThroughputIn": 0.0, "averageMsgSize": 0.0, "chunkedMessageRate": 0.0,
			"msgInCounter": pi.msgs, "bytesInCounter": pi.bytes,
			"address": pi.address, "connectedSince": millis(pi.since), "clientVersion": pi.clientVersion,
			"metadata": pi.metadata, "supportsPartialProducer": t.supportsPartial(p),
		})
	}
	slices.SortFunc(pubs, byProducerName) // as Pulsar lists them (admin_stats_publishers.go)
	subs := map[string]any{}
	var backlogSize int64
	for name, s := range t.subs {
		st := s.stats(o)
		subs[name] = st
		backlogSize += st["backlogSize"].(int64)
	}
	st := map[string]any{
		"msgRateIn": 0.0, "msgRateOut": 0.0, "msgThroughputIn": 0.0, "msgThroughputOut": 0.0,
		"averageMsgSize": 0.0, "msgChunkPublished": false,
		"msgInCounter": t.adm.in.msgs, "bytesInCounter": t.adm.in.bytes,
		"msgOutCounter": t.adm.out.msgs, "bytesOutCounter": t.adm.out.bytes,
		"storageSize": t.storageSize(), "backlogSize": backlogSize,
		"earliestMsgPublishTimeInBacklogs": 0,
		"publishers":                       pubs, "subscriptions": subs, "replication": map[string]any{},
		"deduplicationStatus": "Disabled", "nonContiguousDeletedMessagesRanges": 0,
		"waitingPublishers": 0,
	}
	// topicCreationTimeStamp: when the first entry was stored, else when
	// the topic was loaded (Pulsar: when its managed ledger was created).
	created := t.adm.openedAt.UnixMilli()
	if first, ok := t.led.First(); ok {
		if e, ok := t.led.Get(first); ok && e.BrokerTimestamp > 0 {
			created = min(created, int64(e.BrokerTimestamp))
		}
	}
	st["topicCreationTimeStamp"] = created
	st["lastPublishTimestamp"] = int64(0)
	if last, ok := t.led.Last(); ok {
		if e, ok := t.led.Get(last); ok {
			st["lastPublishTimestamp"] = int64(e.BrokerTimestamp)
		}
	}
	t.addNonPersistentStats(st) // nonpersistent_stats.go
	return st
}

// stats builds Pulsar's SubscriptionStats. Topic goroutine.
func (s *subscription) stats(o statsOptions) map[string]any {
	backlog, backlogBytes := s.backlogOf()
	cons := []map[string]any{}
	var unacked int64
	for _, cs := range s.consumers {
		ci := s.t.adm.consumers[cs]
		if ci == nil {
			ci = &clientInfo{}
		}
		var n int64
		for _, pe := range cs.pending {
			n += int64(max(pe.batch, 1))
		}
		unacked += n
		if o.noConsumers {
			continue
		}
		cons = append(cons, map[string]any{
			"consumerName": cs.name, "availablePermits": max(cs.permits, 0), "unackedMessages": n,
			"blockedConsumerOnUnackedMsgs": cs.blocked, "msgRateOut": 0.0, "msgThroughputOut": 0.0,
			"msgRateRedeliver": 0.0, "messageAckRate": 0.0, "chunkedMessageRate": 0.0,
			"msgOutCounter": ci.msgs, "bytesOutCounter": ci.bytes,
			"address": ci.address, "connectedSince": millis(ci.since), "clientVersion": ci.clientVersion,
			"metadata": ci.metadata, "priorityLevel": cs.priority, "lastConsumedFlowTimestamp": ci.lastFlow,
		})
	}
	sc := s.t.adm.subs[s.name]
	if sc == nil {
		sc = &counter{}
	}
	st := map[string]any{
		"msgRateOut": 0.0, "msgThroughputOut": 0.0, "msgRateRedeliver": 0.0, "msgRateExpired": 0.0,
		"messageAckRate": 0.0, "chunkedMessageRate": 0.0,
		"msgOutCounter": sc.msgs, "bytesOutCounter": sc.bytes,
		"msgBacklog": backlog, "msgBacklogNoDelayed": backlog, "backlogSize": backlogBytes,
		"msgDelayed": 0, "unackedMessages": unacked, "type": subTypeNames[s.typ],
		"consumers": cons, "isDurable": s.durable, "isReplicated": false,
		"blockedSubscriptionOnUnackedMsgs": s.blocked || s.brokerBlocked, "allowOutOfOrderDelivery": false,
		"nonContiguousDeletedMessagesRanges": len(s.cur.Current().Ranges),
		"subscriptionProperties":             map[string]string{},
		"consumersAfterMarkDeletePosition":   map[string]string{},
	}
	if s.active != nil {
		st["activeConsumerName"] = s.active.name
	}
	if next, ok := s.cur.NextUnacked(s.cur.MarkDelete()); ok {
		if e, ok := s.t.led.Get(next); ok {
			st["earliestMsgPublishTimeInBacklog"] = e.PublishTime
		}
	}
	return st
}

// internalStats builds Pulsar's PersistentTopicInternalStats. Topic
// goroutine.
func (t *topic) internalStats() map[string]any {
	segs := t.led.Segments()
	ledgers := []map[string]any{}
	var total int64
	curEntries, curSize := int64(0), int64(0)
	for _, s := range segs {
		ledgers = append(ledgers, map[string]any{"ledgerId": s.ID, "entries": s.Entries, "size": s.Size, "offloaded": false, "underReplicated": false})
		total += s.Size
		if s.ID == t.led.CurrentLedger() {
			curEntries, curSize = int64(s.Entries), s.Size
		}
	}
	if len(segs) == 0 || segs[len(segs)-1].ID != t.led.CurrentLedger() {
		ledgers = append(ledgers, map[string]any{"ledgerId": t.led.CurrentLedger(), "entries": 0, "size": 0, "offloaded": false, "underReplicated": false})
	}
	last := fmt.Sprintf("%d:-1", t.led.CurrentLedger())
	if p, ok := t.led.Last(); ok {
		last = posString(p)
	}
	cursors := map[string]any{}
	for name, s := range t.subs {
		cur := s.cur.Current()
		var ranges []string
		for _, r := range cur.Ranges {
			ranges = append(ranges, fmt.Sprintf("(%s..%s]", posString(justBeforePos(r[0])), posString(r[1])))
		}
		backlog, _ := s.backlogOf()
		read, _ := t.led.Next(s.readPos)
		cursors[name] = map[string]any{
			"markDeletePosition": posString(s.cur.MarkDelete()), "readPosition": posString(read),
			"waitingReadOp": false, "pendingReadOps": 0, "messagesConsumedCounter": t.adm.in.msgs - backlog,
			"cursorLedger": -1, "cursorLedgerLastEntry": -1,
			"individuallyDeletedMessages": "[" + strings.Join(ranges, ", ") + "]",
			"lastLedgerSwitchTimestamp":   "", "state": "Open", "active": len(s.consumers) > 0,
			"numberOfEntriesSinceFirstNotAckedMessage": backlog, "totalNonContiguousDeletedMessagesRange": len(ranges),
			"subscriptionHavePendingRead": false, "subscriptionHavePendingReplayRead": false,
			"properties": map[string]int64{},
		}
	}
	return map[string]any{
		"entriesAddedCounter": t.led.Len(), "numberOfEntries": t.led.Len(), "totalSize": total,
		"currentLedgerEntries": curEntries, "currentLedgerSize": curSize,
		"lastLedgerCreatedTimestamp": "", "waitingCursorsCount": 0, "pendingAddEntriesCount": 0,
		"lastConfirmedEntry": last, "state": "LedgerOpened", "ledgers": ledgers, "cursors": cursors,
		"schemaLedgers": []any{}, "compactedLedger": map[string]any{"ledgerId": -1, "entries": -1, "size": -1, "offloaded": false, "underReplicated": false},
	}
}

// justBeforePos is the position just before p within its ledger, as
// Pulsar writes the open end of an acknowledged range.
func justBeforePos(p ledger.Position) ledger.Position {
	return ledger.Position{Ledger: p.Ledger, Entry: p.Entry - 1}
}
