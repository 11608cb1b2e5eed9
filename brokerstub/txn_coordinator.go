package brokerstub

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// tcStateKey is the MetaStore key of the coordinator's state: its next
// sequence number and every transaction not yet ended (Pulsar's transaction
// log), so that a Restart or a Crash between the two phases of an end
// finishes what was decided and times out what was open.
const tcStateKey = "txn-coordinator/0"

// defaultTxnTimeout is the timeout of a NEW_TXN that gives none (0), as the
// Java client's default.
const defaultTxnTimeout = time.Minute

// txnSubRef names a subscription taking part in a transaction.
type txnSubRef struct {
	Topic string `json:"topic"`
	Sub   string `json:"sub"`
}

// txnAckRec is one transactional ack held pending until the end: the
// position (with the ack set of a batch-index ack) on a subscription.
type txnAckRec struct {
	Topic      string  `json:"topic"`
	Sub        string  `json:"sub"`
	Ledger     int64   `json:"ledger"`
	Entry      int64   `json:"entry"`
	AckSet     []int64 `json:"ackSet,omitempty"`
	Batch      int     `json:"batch"`
	Cumulative bool    `json:"cumulative,omitempty"`
}

// txnMeta is one transaction at the coordinator.
type txnMeta struct {
	Least      uint64      `json:"least"`
	Status     txnStatus   `json:"status"`
	OpenedAt   int64       `json:"openedAt"`  // Unix ms
	TimeoutAt  int64       `json:"timeoutAt"` // Unix ms
	Partitions []string    `json:"partitions,omitempty"`
	Subs       []txnSubRef `json:"subs,omitempty"`
	Acks       []txnAckRec `json:"acks,omitempty"`
	// Owner is the role that opened the transaction, "" when opened without
	// authentication (and in records written before owners were kept):
	// anyone may use it then (txn_owner.go).
	Owner string `json:"owner,omitempty"`

	stop func() bool // the timeout timer; nil once stopped
}

// tcState is what tcStateKey holds.
type tcState struct {
	Next uint64     `json:"next"`
	Txns []*txnMeta `json:"txns"`
}

// coordinator is transaction coordinator 0. Its state is guarded by mu,
// which is never held while a topic is called (topics call it back).
type coordinator struct {
	b *Broker

	mu     sync.Mutex
	closed bool
	next   uint64
	txns   map[uint64]*txnMeta // by least bits
	wg     sync.WaitGroup      // timeouts running

	// beforePhaseTwo, when set by a test, runs after an end was decided and
	// persisted and before the topics learn it; false stops the end there,
	// as a broker that dies between the two phases (END_TXN then fails with
	// ServiceNotReady).
	beforePhaseTwo func(txnID) bool
}

// startCoordinator loads the coordinator's state when transactions are
// enabled: open transactions get their timeouts again, committing and
// aborting ones are finished.
func (b *Broker) startCoordinator() error {
	if !b.opts.TransactionCoordinatorEnabled {
		b.tc.Store(nil)
		return nil
	}
	// As a standalone with the coordinator on: the assign topic exists with
	// one partition per coordinator, so clients find coordinator 0.
	if b.partitionCount(tcAssignTopic) != tcCount {
		if err := b.st.SetPartitions(tcAssignTopic, tcCount); err != nil {
			return fmt.Errorf("brokerstub: create %s: %w", tcAssignTopic, err)
		}
	}
	c := &coordinator{b: b, txns: map[uint64]*txnMeta{}}
	var st tcState
	if kv, ok := b.st.(store.MetaStore); ok {
		raw, found, err := kv.GetMeta(tcStateKey)
		if err != nil {
			return fmt.Errorf("brokerstub: load transactions: %w", err)
		}
		if found {
			if err := json.Unmarshal(raw, &st); err != nil {
				return fmt.Errorf("brokerstub: load transactions: %w: %w", store.ErrCorrupt, err)
			}
		}
	}
	c.next = st.Next
	now := b.opts.Clock.Now().UnixMilli()
	var finish []*txnMeta
	for _, m := range st.Txns {
		if m == nil {
			continue
		}
		c.txns[m.Least] = m
		c.next = max(c.next, m.Least+1)
		if m.Status == txnOpen {
			c.armTimeout(m, time.Duration(m.TimeoutAt-now)*time.Millisecond)
		} else {
			finish = append(finish, m)
		}
	}
	b.tc.Store(c)
	// Finished before the broker serves: no client sees half of one.
	for _, m := range finish {
		id := txnID{Least: m.Least}
		if err := c.end(id, txnByBroker, m.Status == txnCommitting); err != nil {
			b.log.Warn("finish transaction after restart", "txn", id, "err", err)
		}
	}
	return nil
}

// stopCoordinator stops the timeouts and waits for ends in progress.
func (b *Broker) stopCoordinator() {
	c := b.tc.Load()
	if c == nil {
		return
	}
	c.mu.Lock()
	c.closed = true
	for _, m := range c.txns {
		if m.stop != nil {
			m.stop()
			m.stop = nil
		}
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// coordinatorFor returns the coordinator of id, or the error Pulsar answers.
func (b *Broker) coordinatorFor(tcID uint64) (*coordinator, error) {
	c := b.tc.Load()
	if c == nil {
		return nil, errTxnDisabled
	}
	if tcID >= tcCount {
		return nil, fmt.Errorf("%w: %d", errTCNotFound, tcID)
	}
	return c, nil
}

// persistLocked writes the coordinator's state; mu is held.
func (c *coordinator) persistLocked() error {
	kv, ok := c.b.st.(store.MetaStore)
	if !ok {
		return nil
	}
	st := tcState{Next: c.next, Txns: make([]*txnMeta, 0, len(c.txns))}
	for _, m := range c.txns {
		st.Txns = append(st.Txns, m)
	}
	slices.SortFunc(st.Txns, func(a, b *txnMeta) int { return cmp.Compare(a.Least, b.Least) })
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := kv.PutMeta(tcStateKey, raw); err != nil {
		return fmt.Errorf("persist transactions: %w", err)
	}
	return nil
}

// newTxn opens a transaction owned by as that aborts after timeout (0: one
// minute).
func (c *coordinator) newTxn(as txnAs, timeout time.Duration) (txnID, error) {
	if timeout <= 0 {
		timeout = defaultTxnTimeout
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return txnID{}, errTopicClosed
	}
	if l := c.b.opts.Gates.MaxActiveTransactionsPerCoordinator; l > 0 && len(c.txns) >= l {
		return txnID{}, errReachMaxActiveTxn // txn_max_active.go
	}
	now := c.b.opts.Clock.Now()
	m := &txnMeta{Least: c.next, Status: txnOpen, OpenedAt: now.UnixMilli(), TimeoutAt: now.Add(timeout).UnixMilli(),
		Owner: c.b.txnOwnerOf(as)}
	c.next++
	c.txns[m.Least] = m
	if err := c.persistLocked(); err != nil {
		delete(c.txns, m.Least)
		return txnID{}, err
	}
	c.armTimeout(m, timeout)
	return txnID{Least: m.Least}, nil
}

// openLocked returns the open transaction id, or why it is not one or as
// may not use it.
func (c *coordinator) openLocked(id txnID, as txnAs) (*txnMeta, error) {
	if id.Most >= tcCount {
		return nil, fmt.Errorf("%w: %d", errTCNotFound, id.Most)
	}
	m := c.txns[id.Least]
	if m == nil {
		return nil, fmt.Errorf("%w: %s", errTxnNotFound, id)
	}
	if err := c.checkOwnerLocked(m, as); err != nil {
		return nil, err
	}
	if m.Status != txnOpen {
		return nil, fmt.Errorf("%w: %s is %s, not OPEN", errTxnStatus, id, m.Status)
	}
	return m, nil
}

// update applies f to open transaction id for as and persists it when f
// reports a change.
func (c *coordinator) update(id txnID, as txnAs, f func(*txnMeta) bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := c.openLocked(id, as)
	if err != nil {
		return err
	}
	if !f(m) {
		return nil
	}
	return c.persistLocked()
}

// checkOpen reports whether id is an open transaction.
func (c *coordinator) checkOpen(id txnID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.openLocked(id, txnByBroker)
	return err
}

// addPartitions records topics that id produces to.
func (c *coordinator) addPartitions(id txnID, as txnAs, parts []string) error {
	return c.update(id, as, func(m *txnMeta) bool {
		n := len(m.Partitions)
		for _, p := range parts {
			if !slices.Contains(m.Partitions, p) {
				m.Partitions = append(m.Partitions, p)
			}
		}
		return len(m.Partitions) != n
	})
}

// addSubs records subscriptions that id acknowledges on.
func (c *coordinator) addSubs(id txnID, as txnAs, subs []txnSubRef) error {
	return c.update(id, as, func(m *txnMeta) bool {
		n := len(m.Subs)
		for _, s := range subs {
			if !slices.Contains(m.Subs, s) {
				m.Subs = append(m.Subs, s)
			}
		}
		return len(m.Subs) != n
	})
}

// recordAcks records acks that id holds pending (and their subscription).
func (c *coordinator) recordAcks(id txnID, recs []txnAckRec) error {
	return c.update(id, txnByBroker, func(m *txnMeta) bool {
		for _, r := range recs {
			if ref := (txnSubRef{r.Topic, r.Sub}); !slices.Contains(m.Subs, ref) {
				m.Subs = append(m.Subs, ref)
			}
		}
		m.Acks = append(m.Acks, recs...)
		return true
	})
}

// pendingAcksOn returns the acks held by transactions not yet ended on
// topic, for its transaction buffer when it loads.
func (c *coordinator) pendingAcksOn(topic string) map[txnID][]txnAckRec {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[txnID][]txnAckRec{}
	for _, m := range c.txns {
		for _, r := range m.Acks {
			if r.Topic == topic {
				id := txnID{Least: m.Least}
				out[id] = append(out[id], r)
			}
		}
	}
	return out
}

// snapshot returns a copy of transaction id for the admin API.
func (c *coordinator) snapshot(id txnID) (txnMeta, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id.Most >= tcCount {
		return txnMeta{}, fmt.Errorf("%w: %d", errTCNotFound, id.Most)
	}
	m := c.txns[id.Least]
	if m == nil {
		return txnMeta{}, fmt.Errorf("%w: %s", errTxnNotFound, id)
	}
	cp := *m
	cp.Partitions, cp.Subs, cp.Acks = slices.Clone(m.Partitions), slices.Clone(m.Subs), slices.Clone(m.Acks)
	cp.stop = nil
	return cp, nil
}
