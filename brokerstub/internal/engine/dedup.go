package engine

import (
	"encoding/json"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	pb "github.com/pulsargo/sdk/internal/proto"
)

// Broker deduplication, as Pulsar's MessageDeduplication: with it on, a
// topic keeps the highest sequence id stored for each producer name; a SEND
// whose sequence id is at or below it is a duplicate, answered with a
// SEND_RECEIPT for message id -1:-1 and not stored, and PRODUCER_SUCCESS
// carries it as last_sequence_id (else -1) so that a producer resumes its
// sequence. Only the last chunk of a chunked message is checked and
// recorded, as Pulsar does. The state is rebuilt from the stored entries'
// metadata (producer_name, sequence_id, highest_sequence_id) when a topic is
// loaded with deduplication on — after Restart, Crash or in a new process
// over the same DataDir — where Pulsar reads its snapshot and replays the
// entries after it. One difference: the stub also learns the sequence ids
// of entries stored while deduplication was off, which Pulsar's cursor,
// opened when it is switched on, never reads. Stores are synchronous here,
// so Pulsar's "unknown" status (a sequence id pushed but not yet persisted,
// answered with an error) cannot arise.

// dedup is one topic's state, owned by the topic goroutine.
type dedup struct {
	highest map[string]int64 // producer name -> highest sequence id stored
	// inactive holds when each producer name last disconnected
	// (dedup_inactive.go).
	inactive map[string]time.Time
}

// dedupEnabledFor reports whether deduplication is on for the topic:
// persistent topics only; the topic's deduplicationEnabled policy (on the
// topic or its partitioned topic), else its namespace's, else
// Options.BrokerDeduplicationEnabled — as Pulsar 4.x resolves it. The
// policies are read from the admin state, so they hold after Restart,
// Crash and in a new process over the same DataDir.
func (b *Engine) dedupEnabledFor(name TopicName) bool {
	if name.Domain != "persistent" {
		return false
	}
	if raw, ok := b.appliedPolicy(name, "deduplicationEnabled"); ok {
		var on bool
		if json.Unmarshal(raw, &on) == nil {
			return on
		}
	}
	return b.cfg.BrokerDeduplicationEnabled
}

// PoliciesChanged applies the policies of a namespace (only nil) or of one
// topic and its partitions (only) to the loaded topics at once, as Pulsar's
// onPoliciesUpdate does under live producers and consumers: deduplication
// switches on or off (MessageDeduplication.checkStatus) and, with delayed
// delivery switched off, held messages go at once. TTL and retention apply
// at the topics' next check.
func (b *Engine) PoliciesChanged(namespace string, only *TopicName) {
	b.mu.Lock()
	var ts []*Topic
	for _, t := range b.topics {
		if only == nil && t.name.Namespace == namespace || only != nil && t.name.Base == only.Base {
			ts = append(ts, t)
		}
	}
	b.mu.Unlock()
	for _, t := range ts {
		_ = t.Call(t.applyPolicies)
	}
}

// applyPolicies re-reads the policies a loaded topic enforces at once.
// Topic goroutine.
func (t *Topic) applyPolicies() {
	t.checkDedup()
	t.limits = t.b.limitsFor(t.name) // limits.go
	t.applyRates()                   // ratelimit_dispatch.go
	for _, s := range t.Subs {
		s.recheckUnacked()
		if s.delayed != nil {
			s.delayed.tr.SetTick(s.delayTick().Milliseconds(), t.b.cfg.DelayedDeliveryStrict)
		}
		s.releaseDue()
		s.Dispatch()
	}
}

// checkDedup switches the topic's deduplication on (rebuilding its state
// from the stored entries) or off (forgetting it) to match the policy. It
// runs on the topic goroutine.
func (t *Topic) checkDedup() {
	on := t.b.dedupEnabledFor(t.name)
	switch {
	case on && t.dedup == nil:
		t.dedup = &dedup{highest: map[string]int64{}}
		if first, ok := t.Led.First(); ok {
			t.Led.Scan(first, func(e ledger.Entry) bool {
				var md pb.MessageMetadata
				if err := (gproto.UnmarshalOptions{AllowPartial: true}).Unmarshal(e.Meta, &md); err == nil {
					t.dedup.record(&md, md.GetProducerName(), md.GetSequenceId(), md.GetHighestSequenceId())
				}
				return true
			})
		}
	case !on:
		t.dedup = nil
	}
}

// isDuplicate reports whether a SEND of producer name with sequence id seq
// was stored already (MessageDeduplication.isDuplicate).
func (d *dedup) isDuplicate(md *pb.MessageMetadata, name string, seq uint64) bool {
	if d == nil || !lastChunk(md) {
		return false
	}
	last, ok := d.highest[name]
	return ok && int64(seq) <= last
}

// record notes a stored SEND (recordMessagePersisted): the highest of its
// sequence id and highest_sequence_id, for the last chunk only.
func (d *dedup) record(md *pb.MessageMetadata, name string, seq, highest uint64) {
	if d == nil || !lastChunk(md) {
		return
	}
	d.highest[name] = max(int64(seq), int64(highest))
}

// LastSequenceID is the last_sequence_id for PRODUCER_SUCCESS: the highest
// sequence id stored for the producer name, or -1.
func (d *dedup) LastSequenceID(name string) int64 {
	if d == nil {
		return -1
	}
	if v, ok := d.highest[name]; ok {
		return v
	}
	return -1
}

// lastChunk reports whether md is not a chunk, or is the last chunk of its
// message.
func lastChunk(md *pb.MessageMetadata) bool {
	if md == nil || md.NumChunksFromMsg == nil || md.GetNumChunksFromMsg() <= 1 {
		return true
	}
	return md.GetChunkId() == md.GetNumChunksFromMsg()-1
}

// dupReceipt is the SEND_RECEIPT Pulsar gives a duplicate: message id -1:-1.
func (t *Topic) dupReceipt(producerID, seq, highest uint64) *pb.BaseCommand {
	return t.Receipt(producerID, seq, highest, ledger.Position{Ledger: -1, Entry: -1})
}
