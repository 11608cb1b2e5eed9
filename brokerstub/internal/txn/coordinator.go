package txn

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
	"github.com/pulsargo/sdk/internal/clock"
)

// Coordinators is the number of transaction coordinators: one, as a
// Pulsar standalone, whose AssignTopic has one partition.
const Coordinators = 1

// AssignTopic is the partitioned topic whose partitions name the
// transaction coordinators; clients look up its partitions to find them.
const AssignTopic = "persistent://pulsar/system/transaction_coordinator_assign"

// StateKey is the MetaStore key of the coordinator's state: its next
// sequence number and every transaction not yet ended (Pulsar's
// transaction log), so that a restart between the two phases of an end
// finishes what was decided and times out what was open.
const StateKey = "txn-coordinator/0"

// DefaultTimeout is the timeout of a new transaction that gives none (0),
// as the Java client's default.
const DefaultTimeout = time.Minute

// MaxTimeout bounds a new transaction's timeout, so that no input
// overflows the clock's arithmetic.
const MaxTimeout = 365 * 24 * time.Hour

// Sub names a subscription taking part in a transaction.
type Sub struct {
	Topic string `json:"topic"`
	Sub   string `json:"sub"`
}

// Record is one transaction at the coordinator, as it is persisted under
// StateKey and as Snapshot returns it.
type Record struct {
	Least      uint64   `json:"least"`
	Status     Status   `json:"status"`
	OpenedAt   int64    `json:"openedAt"`  // Unix ms
	TimeoutAt  int64    `json:"timeoutAt"` // Unix ms
	Partitions []string `json:"partitions,omitempty"`
	Subs       []Sub    `json:"subs,omitempty"`
	Acks       []Ack    `json:"acks,omitempty"`
	// Owner is the role that opened the transaction, "" when opened
	// without authentication (and in records written before owners were
	// kept): anyone may use it then (owner.go).
	Owner string `json:"owner,omitempty"`

	stop func() bool // the timeout timer; nil once stopped
}

// ID is the record's transaction id.
func (r *Record) ID() ID { return ID{Least: r.Least} }

// state is what StateKey holds.
type state struct {
	Next uint64    `json:"next"`
	Txns []*Record `json:"txns"`
}

// Topics is what the coordinator asks of the broker's topics; brokerstub's
// root implements it, running each call on the topic's goroutine. A topic
// that does not exist has nothing to end (nil).
type Topics interface {
	// EndOnPartition ends id on topic (END_TXN_ON_PARTITION): the topic's
	// Buffer writes its marker. Idempotent.
	EndOnPartition(topic string, id ID, commit bool) error
	// EndOnSubscription ends id on a subscription
	// (END_TXN_ON_SUBSCRIPTION): acks are the transaction's acks there, to
	// apply on commit or redeliver on abort. Idempotent.
	EndOnSubscription(topic, sub string, id ID, commit bool, acks []Ack) error
	// InBuffer is what topic's Buffer knows of id, for the admin API.
	InBuffer(topic string, id ID) InBufferStats
}

// Config is what a Coordinator is built from.
type Config struct {
	// Clock times transactions out and stamps them.
	Clock clock.Clock
	// Store keeps the coordinator's state under StateKey; nil keeps it
	// nowhere (nothing survives a restart).
	Store store.MetaStore
	// Topics ends transactions on topics and subscriptions.
	Topics Topics
	// MaxActive is how many transactions may be open at once; 0 is no
	// limit (maxActiveTransactionsPerCoordinator).
	MaxActive int
	// RecordOwners is on with authentication: a new transaction belongs to
	// its caller's role.
	RecordOwners bool
	// SuperUser reports whether role may use any transaction (authorization
	// on and role a super user); nil is nobody.
	SuperUser func(role string) bool
	// Log receives what goes wrong in the background (a timeout's abort,
	// the recovery's ends); nil discards it.
	Log *slog.Logger
}

// Coordinator is transaction coordinator 0. Its state is guarded by mu,
// which is never held while a topic is called (topics call it back).
type Coordinator struct {
	cfg Config

	mu      sync.Mutex
	closed  bool
	next    uint64
	txns    map[uint64]*Record // by least bits
	wg      sync.WaitGroup     // timeouts running
	decided []*Record          // decided when loaded, for Recover

	// beforePhaseTwo, when set by a test, runs after an end was decided
	// and persisted and before the topics learn it; false stops the end
	// there, as a broker that dies between the two phases.
	beforePhaseTwo func(ID) bool
}

// Load builds the coordinator from cfg and the state cfg.Store holds:
// open transactions get their timeouts again. Those decided (committing or
// aborting) are finished by Recover, once the broker can reach the
// coordinator from its topics.
func Load(cfg Config) (*Coordinator, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	c := &Coordinator{cfg: cfg, txns: map[uint64]*Record{}}
	var st state
	if cfg.Store != nil {
		raw, found, err := cfg.Store.GetMeta(StateKey)
		if err != nil {
			return nil, fmt.Errorf("load transactions: %w", err)
		}
		if found {
			if err := json.Unmarshal(raw, &st); err != nil {
				return nil, fmt.Errorf("load transactions: %w: %w", store.ErrCorrupt, err)
			}
		}
	}
	c.next = st.Next
	now := cfg.Clock.Now().UnixMilli()
	for _, m := range st.Txns {
		if m == nil {
			continue
		}
		c.txns[m.Least] = m
		c.next = max(c.next, m.Least+1)
		if m.Status == Open {
			c.armTimeout(m, time.Duration(m.TimeoutAt-now)*time.Millisecond)
		} else {
			c.decided = append(c.decided, m)
		}
	}
	return c, nil
}

// Recover finishes the transactions that were decided (committing or
// aborting) when the state was persisted, so that no client sees half of
// one. The broker calls it before it serves.
func (c *Coordinator) Recover() {
	c.mu.Lock()
	type decision struct {
		id     ID
		commit bool
	}
	finish := make([]decision, 0, len(c.decided))
	for _, m := range c.decided {
		finish = append(finish, decision{m.ID(), m.Status == Committing})
	}
	c.decided = nil
	c.mu.Unlock()
	for _, d := range finish {
		id := d.id
		if err := c.End(id, ByBroker, d.commit); err != nil {
			c.cfg.Log.Warn("finish transaction after restart", "txn", id, "err", err)
		}
	}
}

// Close stops the timeouts and waits for those running.
func (c *Coordinator) Close() {
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

// SetBeforePhaseTwo sets a test's hook that runs after an end was decided
// and persisted and before the topics learn it; false stops the end there
// (END_TXN then fails with ErrClosed), as a broker that dies between the
// two phases.
func (c *Coordinator) SetBeforePhaseTwo(f func(ID) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.beforePhaseTwo = f
}

// Check returns the error for a coordinator id this broker does not have.
func Check(tcID uint64) error {
	if tcID >= Coordinators {
		return fmt.Errorf("%w: %d", ErrTCNotFound, tcID)
	}
	return nil
}

// persistLocked writes the coordinator's state; mu is held.
func (c *Coordinator) persistLocked() error {
	if c.cfg.Store == nil {
		return nil
	}
	st := state{Next: c.next, Txns: make([]*Record, 0, len(c.txns))}
	for _, m := range c.txns {
		st.Txns = append(st.Txns, m)
	}
	slices.SortFunc(st.Txns, func(a, b *Record) int { return cmp.Compare(a.Least, b.Least) })
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := c.cfg.Store.PutMeta(StateKey, raw); err != nil {
		return fmt.Errorf("persist transactions: %w", err)
	}
	return nil
}

// NewTxn opens a transaction for as that aborts after timeout (0:
// DefaultTimeout). Over Config.MaxActive it fails with ErrMaxActive.
func (c *Coordinator) NewTxn(as Caller, timeout time.Duration) (ID, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ID{}, ErrClosed
	}
	if l := c.cfg.MaxActive; l > 0 && len(c.txns) >= l {
		return ID{}, ErrMaxActive
	}
	now := c.cfg.Clock.Now()
	m := &Record{Least: c.next, Status: Open, OpenedAt: now.UnixMilli(), TimeoutAt: now.Add(timeout).UnixMilli(),
		Owner: c.ownerOf(as)}
	c.next++
	c.txns[m.Least] = m
	if err := c.persistLocked(); err != nil {
		delete(c.txns, m.Least)
		return ID{}, err
	}
	c.armTimeout(m, timeout)
	return m.ID(), nil
}

// findLocked returns transaction id if as may use it; mu is held.
func (c *Coordinator) findLocked(id ID, as Caller) (*Record, error) {
	if err := Check(id.Most); err != nil {
		return nil, err
	}
	m := c.txns[id.Least]
	if m == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err := c.checkOwnerLocked(m, as); err != nil {
		return nil, err
	}
	return m, nil
}

// openLocked returns the open transaction id, or why it is not one or as
// may not use it; mu is held.
func (c *Coordinator) openLocked(id ID, as Caller) (*Record, error) {
	m, err := c.findLocked(id, as)
	if err != nil {
		return nil, err
	}
	if m.Status != Open {
		return nil, fmt.Errorf("%w: %s is %s, not OPEN", ErrStatus, id, m.Status)
	}
	return m, nil
}

// update applies f to open transaction id for as and persists it when f
// reports a change.
func (c *Coordinator) update(id ID, as Caller, f func(*Record) bool) error {
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

// CheckOpen reports whether id is an open transaction.
func (c *Coordinator) CheckOpen(id ID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.openLocked(id, ByBroker)
	return err
}

// AddPartitions records topics that id produces to
// (ADD_PARTITION_TO_TXN, and every transactional send).
func (c *Coordinator) AddPartitions(id ID, as Caller, parts []string) error {
	return c.update(id, as, func(m *Record) bool {
		n := len(m.Partitions)
		for _, p := range parts {
			if !slices.Contains(m.Partitions, p) {
				m.Partitions = append(m.Partitions, p)
			}
		}
		return len(m.Partitions) != n
	})
}

// AddSubs records subscriptions that id acknowledges on
// (ADD_SUBSCRIPTION_TO_TXN).
func (c *Coordinator) AddSubs(id ID, as Caller, subs []Sub) error {
	return c.update(id, as, func(m *Record) bool {
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
func (c *Coordinator) recordAcks(id ID, acks []Ack) error {
	return c.update(id, ByBroker, func(m *Record) bool {
		for _, r := range acks {
			if ref := (Sub{r.Topic, r.Sub}); !slices.Contains(m.Subs, ref) {
				m.Subs = append(m.Subs, ref)
			}
		}
		m.Acks = append(m.Acks, acks...)
		return true
	})
}

// pendingAcksOn returns the acks held by transactions not yet ended on
// topic, for its Buffer when it loads.
func (c *Coordinator) pendingAcksOn(topic string) map[ID][]Ack {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[ID][]Ack{}
	for _, m := range c.txns {
		for _, r := range m.Acks {
			if r.Topic == topic {
				out[m.ID()] = append(out[m.ID()], r)
			}
		}
	}
	return out
}

// Snapshot returns a copy of transaction id.
func (c *Coordinator) Snapshot(id ID) (Record, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := Check(id.Most); err != nil {
		return Record{}, err
	}
	m := c.txns[id.Least]
	if m == nil {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	cp := *m
	cp.Partitions, cp.Subs, cp.Acks = slices.Clone(m.Partitions), slices.Clone(m.Subs), slices.Clone(m.Acks)
	cp.stop = nil
	return cp, nil
}
