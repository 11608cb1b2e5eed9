package engine

import (
	"errors"
	"fmt"
	"iter"

	"github.com/pulsargo/sdk/brokerstub/internal/compaction"
	"github.com/pulsargo/sdk/brokerstub/internal/cursor"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// Topic compaction, as Pulsar's (PublishingOrderCompactor, CompactedTopicImpl):
// a compaction reads the topic up to its last readable entry (the horizon)
// and keeps the latest message of each key (internal/compaction). Consumers
// and readers with readCompacted (Exclusive or Failover) read that view up
// to the horizon, then the topic after it (compaction_dispatch.go). The
// compaction is durable: the view is kept in the store, and the
// __compaction subscription marks the horizon, holding back the trimming of
// what comes after it. A compaction runs when the admin API asks
// (PUT .../compaction) and when the monitor finds the __compaction
// subscription's backlog over the compaction threshold (the topic's
// compactionThreshold policy, else the namespace's, else
// CompactionOptions.ThresholdBytes). Everything here runs on the topic
// goroutine, which owns the view.

// compactionSubscription is the durable subscription a compaction marks its
// horizon on (Pulsar's Compactor.COMPACTION_SUBSCRIPTION).
const compactionSubscription = "__compaction"

// compactedViewKey is the store key (a cursor slot of the topic) that holds
// the compacted view; no subscription can have it, as it has a NUL byte,
// and restoreSubscriptions passes it over.
const compactedViewKey = "__compaction\x00view"

// The states of Pulsar's LongRunningProcessStatus.
const (
	compactionNotRun  = "NOT_RUN"
	compactionSuccess = "SUCCESS"
	compactionError   = "ERROR"
)

// compactState is a topic's compaction state, owned by the topic goroutine.
type compactState struct {
	view        *compaction.View // nil until the first compaction
	status      string           // "" (NOT_RUN), SUCCESS or ERROR
	lastError   string
	stopMonitor func() bool
}

// ErrCompactNonPersistent refuses compaction of a non-persistent topic.
var ErrCompactNonPersistent = errors.New("compaction is only possible on persistent topics")

// loadCompacted reads the topic's compacted view from the store (before the
// topic goroutine starts). A view that does not decode is dropped with an
// error in the log: readCompacted readers then read the whole topic until
// the next compaction.
func (t *Topic) loadCompacted() {
	raw, ok, err := t.b.st.LoadCursor(t.name.Full, compactedViewKey)
	if err != nil || !ok {
		if err != nil {
			t.b.log.Error("load compacted view", "topic", t.name.Full, "err", err)
		}
		return
	}
	v, err := compaction.Decode(raw)
	if err != nil {
		t.b.log.Error("load compacted view; readCompacted reads the whole topic until the next compaction",
			"topic", t.name.Full, "err", err)
		return
	}
	t.compact.view = v
	t.compact.status = compactionSuccess
}

// CompactNow compacts the topic: the previous view, then the readable
// entries after its horizon up to the last one (markers and aborted
// messages left out, as Pulsar's compaction reader does not read them).
// It does nothing on a topic with nothing new since the last compaction
// ("Skip compaction of the empty topic").
func (t *Topic) CompactNow() error {
	if t.np != nil {
		return ErrCompactNonPersistent
	}
	err := t.compactInto()
	if err != nil {
		t.compact.status, t.compact.lastError = compactionError, err.Error()
		t.b.log.Error("compaction failed", "topic", t.name.Full, "err", err)
		return err
	}
	t.compact.status, t.compact.lastError = compactionSuccess, ""
	t.dispatchAll()
	return nil
}

func (t *Topic) compactInto() error {
	horizon, ok := t.lastDispatchable() // txn_topic.go: before the max-read position
	old := t.compact.view
	from := ledger.Earliest
	if old != nil {
		from = old.Horizon
	}
	if !ok || !from.Less(horizon) {
		return nil // nothing new to compact
	}
	entries := t.compactionInput(old, from, horizon)
	v, _, err := compaction.Compact(entries, horizon, compaction.Options{MaxUncompressedSize: t.b.cfg.MaxMessageSize})
	if err != nil {
		return err
	}
	if err := t.b.st.SaveCursor(t.name.Full, compactedViewKey, v.Encode()); err != nil {
		return fmt.Errorf("store the compacted view: %w", err)
	}
	t.compact.view = v
	t.markHorizon(horizon)
	return nil
}

// compactionInput yields the previous view's entries, then the readable
// entries after from up to horizon.
func (t *Topic) compactionInput(old *compaction.View, from, horizon ledger.Position) iter.Seq[ledger.Entry] {
	return func(yield func(ledger.Entry) bool) {
		if old != nil {
			for _, e := range old.Entries {
				if !yield(e) {
					return
				}
			}
		}
		t.Led.Scan(from, func(e ledger.Entry) bool {
			if !from.Less(e.Pos) {
				return true
			}
			if horizon.Less(e.Pos) {
				return false
			}
			if t.txnHidden(t.info(e)) {
				return true
			}
			return yield(e)
		})
	}
}

// markHorizon moves the __compaction subscription (created if needed) to
// the horizon and persists it, as Pulsar's compactor acknowledges
// cumulatively up to the last entry it read.
func (t *Topic) markHorizon(horizon ledger.Position) {
	s := t.Subs[compactionSubscription]
	if s == nil {
		cur := cursor.New(horizon, t.Led, t.cursorOptions())
		s = t.newSubscription(compactionSubscription, true, proto.CommandSubscribe_Exclusive, cur)
		t.Subs[s.name] = s
	} else if s.Cur.MarkDelete().Less(horizon) {
		s.Cur.AckCumulative(horizon, nil, 0)
		if s.readPos.Less(horizon) {
			s.readPos = horizon
		}
	}
	if st, ok := s.Cur.Flush(); ok {
		s.save(st)
	} else {
		s.save(s.Cur.PersistedBytes())
	}
}

// compactionThreshold is the backlog in bytes past which the monitor
// compacts the topic: the topic policy, else the namespace policy, else
// the broker's; 0 for never.
func (b *Engine) compactionThreshold(name TopicName) int64 {
	return b.intPolicy(name, "compactionThreshold", "compaction_threshold", int(b.cfg.Compaction.ThresholdBytes))
}

// armCompactionMonitor schedules the topic's next compaction check (on the
// topic goroutine).
func (t *Topic) armCompactionMonitor() {
	if t.np != nil {
		return
	}
	t.compact.stopMonitor = t.b.cfg.Clock.AfterFunc(t.b.cfg.Compaction.MonitorInterval, func() {
		t.Do(func() {
			t.checkCompaction()
			t.armCompactionMonitor()
		})
	})
}

// stopCompactionMonitor stops the monitor's timer when the topic stops.
func (t *Topic) stopCompactionMonitor() {
	if t.compact.stopMonitor != nil {
		t.compact.stopMonitor()
	}
}

// checkCompaction compacts the topic when the backlog of its __compaction
// subscription (the whole topic before the first compaction) is over the
// threshold, as Pulsar's PersistentTopic.checkCompaction.
func (t *Topic) checkCompaction() {
	threshold := t.b.compactionThreshold(t.name)
	if threshold <= 0 || isSystemTopic(t.name.Full) {
		return
	}
	from := ledger.Earliest
	if s := t.Subs[compactionSubscription]; s != nil {
		from = s.Cur.MarkDelete()
	}
	if t.estimatedSizeAfter(from) > threshold {
		_ = t.CompactNow() // its error is in the status and the log
	}
}

// estimatedSizeAfter estimates the bytes of the entries after p from the
// ledgers' sizes, as Pulsar's getEstimatedSizeSinceMarkDeletePosition does
// (a ledger p falls in counts by its average entry size), without reading
// any payload.
func (t *Topic) estimatedSizeAfter(p ledger.Position) int64 {
	var n int64
	for _, seg := range t.Led.Segments() {
		switch {
		case p.Ledger < seg.ID:
			n += seg.Size
		case p.Ledger == seg.ID && p.Entry+1 < int64(seg.Entries):
			after := int64(seg.Entries) - (p.Entry + 1)
			n += seg.Size * after / int64(seg.Entries)
		}
	}
	return n
}

// CompactionStatus is Pulsar's LongRunningProcessStatus.
type CompactionStatus struct {
	Status    string `json:"status"`
	LastError string `json:"lastError"`
}

func (t *Topic) CompactionStatusJSON() CompactionStatus {
	st := CompactionStatus{Status: t.compact.status, LastError: t.compact.lastError}
	if st.Status == "" {
		st.Status = compactionNotRun
	}
	return st
}
