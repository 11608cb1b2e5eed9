package engine

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	pb "github.com/pulsargo/sdk/internal/proto"
)

// ErrTopicClosed is returned when a topic was unloaded or the broker stopped
// while an operation waited for it; clients get ServiceNotReady and retry.
var ErrTopicClosed = errors.New("topic closed")

// Topic owns one topic's state — ledger, producers, subscriptions — in one
// goroutine. Everything else talks to it by queueing functions with do or
// call; those functions run on the topic goroutine and may touch its state
// without locks.
type Topic struct {
	b    *Engine
	name TopicName
	Ops  chan func()
	quit chan struct{} // closed to ask the goroutine to stop
	done chan struct{} // closed when the goroutine has stopped

	// Owned by the topic goroutine.
	Led       *ledger.Ledger
	producers map[*Producer]struct{}
	Access    *accessState // producer access modes (access.go); nil until used
	Subs      map[string]*Subscription
	infos     map[ledger.Position]*entryInfo
	stopFlush func() bool
	graceful  bool
	adm       topicAdmin   // admin API counters and flags (topic_counters.go)
	dedup     *dedup       // nil when deduplication is off (dedup.go)
	timers    policyTimers // message expiry (ttl.go) and retention (retention.go) checks
	// np is the state of a non-persistent topic (nonpersistent.go), nil for
	// a persistent one.
	np *npState
	// Txn is the transaction buffer (txn_topic.go), nil unless
	// transactions are enabled and the topic is persistent.
	Txn *txn.Buffer
	// durable holds the appends the store has made durable, for the topic
	// goroutine to finish (pipeline.go); finishing is its reused buffer.
	durable   durableQueue
	finishing []finishedAppend
	inflight  int // appends handed to the store and not finished
	// limits are the producer, consumer, subscription and unacked limits
	// in effect (limits.go).
	limits topicLimits
	// compact is the compacted view and the state of compaction
	// (compaction.go).
	compact compactState
	// rates are its rate limits in effect and their buckets
	// (ratelimit_dispatch.go).
	rates topicRates
	// life is the topic's part of the lifecycle checks (inactive.go).
	life lifeState
}

// entryInfo is what dispatch needs from an entry's metadata, parsed once.
type entryInfo struct {
	numMessages int32
	batched     bool   // the metadata has num_messages_in_batch
	uuid        string // chunk uuid, "" when not a chunk
	chunkID     int32
	numChunks   int32
	key         []byte // sticky key for Key_Shared (keyshared.StickyKey)
	murmur      uint32 // keyshared.Murmur31(key), mapped per selector range
	deliverAt   int64  // deliver_at_time, Unix ms; 0 when not delayed
	inTxn       bool   // the metadata has a transaction id (txn_topic.go)
	txn         txn.ID // that id
	marker      int32  // marker_type, 0 for a message
}

// openTopic loads a topic: its ledger from the store and its durable
// subscriptions' cursors as last persisted.
func (b *Engine) openTopic(name TopicName) (*Topic, error) {
	t := &Topic{
		b: b, name: name,
		Ops:       make(chan func(), 256),
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
		producers: map[*Producer]struct{}{},
		Subs:      map[string]*Subscription{},
		infos:     map[ledger.Position]*entryInfo{},
		durable:   newDurableQueue(),
	}
	st, cache := b.st, b.cache
	if name.Domain == NonPersistentDomain {
		// Nothing of a non-persistent topic is stored: its ledger, always
		// empty, lives in a store of its own that goes away with it.
		st, cache = store.NewMemory(), nil
		t.np = newNPState()
	}
	lo := ledger.Options{
		RolloverEntries: b.cfg.LedgerRolloverEntries,
		Now:             b.cfg.Clock.Now,
		Cache:           cache, // used only with the bbolt store (a DataDir)
	}
	b.rolloverOptions(&lo) // rollover.go
	led, err := ledger.Open(st, name.Full, lo)
	if err != nil {
		return nil, fmt.Errorf("open ledger of %s: %w", name.Full, err)
	}
	t.Led = led
	t.adm.terminated = b.Pol().Terminated(name.Full)
	t.adm.openedAt = b.cfg.Clock.Now()
	t.life.lastActive = t.adm.openedAt // inactive.go
	if t.np == nil {
		if err := t.restoreSubscriptions(); err != nil {
			return nil, err
		}
		t.loadTxnBuffer() // txn_topic.go
		t.loadCompacted() // compaction.go
	}
	t.checkDedup()
	t.limits = b.limitsFor(name)
	t.applyRates() // ratelimit_dispatch.go
	b.topicsWG.Add(1)
	go t.run()
	t.armFlush()
	t.armQuotaCheck()
	t.Do(t.armPolicyChecks) // on the topic goroutine, which owns the timers
	t.Do(t.armCompactionMonitor)
	t.Do(t.armRollover) // rollover.go
	return t, nil
}

func (t *Topic) run() {
	defer t.b.topicsWG.Done()
	defer close(t.done)
	for {
		select {
		case f := <-t.Ops:
			f()
		case <-t.durable.wake:
			t.finishDurable() // pipeline.go
		case <-t.quit:
			t.shutdown()
			return
		}
	}
}

// shutdown runs on the topic goroutine when it stops: a graceful stop
// flushes every durable cursor; a crash does not.
func (t *Topic) shutdown() {
	if t.stopFlush != nil {
		t.stopFlush()
	}
	t.adm.stopTimers()
	t.timers.stop()
	t.stopCompactionMonitor()
	t.life.stop() // rollover.go
	if t.graceful {
		t.awaitDurable() // pipeline.go
		t.flushCursors(true)
	}
	for _, s := range t.Subs {
		s.clearDelayed() // stop delayed-delivery timers (delayed.go)
	}
	// Fail whatever is still queued so no caller waits forever.
	for drained := false; !drained; {
		select {
		case f := <-t.Ops:
			f()
		default:
			drained = true
		}
	}
	t.Led.Close() // its bytes leave the entry cache (internal/ledger/cache.go)
}

// Do queues f on the topic goroutine; it reports false if the topic has
// stopped.
func (t *Topic) Do(f func()) bool {
	select {
	case <-t.done:
		return false
	default:
	}
	select {
	case t.Ops <- f:
		return true
	case <-t.done:
		return false
	}
}

// Call runs f on the topic goroutine and waits for it.
func (t *Topic) Call(f func()) error {
	ran := make(chan struct{})
	if !t.Do(func() { f(); close(ran) }) {
		return ErrTopicClosed
	}
	select {
	case <-ran:
		return nil
	case <-t.done:
		select {
		case <-ran:
			return nil
		default:
			return ErrTopicClosed
		}
	}
}

// stop asks the topic goroutine to end (flushing cursors when graceful) and
// waits for it.
func (t *Topic) stop(graceful bool) {
	select {
	case <-t.done:
		return
	default:
	}
	// graceful is read by the goroutine after quit is closed.
	_ = t.Call(func() { t.graceful = graceful })
	select {
	case <-t.quit:
	default:
		close(t.quit)
	}
	<-t.done
}

// armFlush schedules the next periodic cursor flush.
func (t *Topic) armFlush() {
	t.stopFlush = t.b.cfg.Clock.AfterFunc(t.b.cfg.CursorFlushInterval/4+1, func() {
		t.Do(func() {
			t.flushCursors(false)
			t.armFlush()
		})
	})
}

// info returns the parsed metadata of the entry at p.
func (t *Topic) info(e ledger.Entry) *entryInfo {
	if in, ok := t.infos[e.Pos]; ok {
		return in
	}
	in := parseEntryInfo(e)
	t.infos[e.Pos] = in
	return in
}

// parseEntryInfo parses what dispatch needs from an entry's metadata.
func parseEntryInfo(e ledger.Entry) *entryInfo {
	var md pb.MessageMetadata
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(e.Meta, &md); err != nil {
		md.Reset()
	}
	return entryInfoOf(&md, e.NumMessages)
}

// entryInfoOf is what dispatch needs from an entry's decoded metadata.
func entryInfoOf(md *pb.MessageMetadata, numMessages int32) *entryInfo {
	in := &entryInfo{numMessages: numMessages}
	in.batched = md.NumMessagesInBatch != nil
	if md.NumChunksFromMsg != nil && md.GetNumChunksFromMsg() > 1 {
		in.uuid, in.chunkID, in.numChunks = md.GetUuid(), md.GetChunkId(), md.GetNumChunksFromMsg()
	}
	in.key = keyshared.StickyKey(md)
	in.deliverAt = md.GetDeliverAtTime()
	in.txn, in.inTxn = txn.IDOf(md.TxnidMostBits, md.TxnidLeastBits)
	in.marker = md.GetMarkerType()
	in.murmur = keyshared.Murmur31(in.key)
	if in.numMessages < 1 {
		in.numMessages = 1
	}
	return in
}

// noteInfo records what dispatch needs of an entry just stored at p, from
// the metadata its SEND decoded, so that dispatch does not parse it again.
func (t *Topic) noteInfo(p ledger.Position, md *pb.MessageMetadata, numMessages int32) {
	t.infos[p] = entryInfoOf(md, numMessages)
}
