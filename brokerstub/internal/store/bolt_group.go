package store

import (
	"errors"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// Group commit of appended entries, as BookKeeper's journal does: the
// entries that arrive while a commit is being synced go into the next
// commit together, so one fsync covers all of them; an entry that arrives
// when no commit is running is committed at once (no added delay). An
// append's outcome is reported only after the commit that holds its entry
// is synced, so nothing is acknowledged before it is durable.
//
// Appends are queued, not handed over: a topic goroutine can queue its
// next entries (AppendEntryAsync) while a commit holding its earlier ones
// is being synced, so that many producers on ONE topic share syncs too, as
// many topics appending one entry each do. The queue is FIFO, so the
// entries of one topic are committed, and reported, in the order they were
// queued. Once an entry fails (other than for its position), the later entries of its topic in the same
// ledger fail too (ErrOutOfOrder): a ledger never has a hole, and the
// topic, told of the failure, goes on in a new ledger.

// Bounds of one group: a commit holds at most maxGroupEntries entries and
// stops taking more once it holds maxGroupBytes of them.
const (
	maxGroupEntries = 512
	maxGroupBytes   = 32 << 20
)

// appendReq is one queued append.
type appendReq struct {
	topic string
	e     StoredEntry
	key   []byte
	value []byte
	done  func(error) // called once with the entry's outcome, by the committer
}

// committer runs the group commits of a boltStore.
type committer struct {
	mu     sync.Mutex
	queue  []*appendReq // appends not yet taken into a group, in order
	closed bool
	wake   chan struct{} // capacity 1: the queue has become non-empty

	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
	commits atomic.Int64 // write transactions committed for appends (tests)
	waiting atomic.Int64 // appends queued and not yet taken into a group (tests)
	// beforeCommit, when set (tests), runs before each group commit with the
	// number of entries in it.
	beforeCommit func(n int)
	// refuse, when set (tests), fails the put of the entries it returns an
	// error for, as bbolt refusing a value would.
	refuse func(topic string, e StoredEntry) error

	// failed holds, per topic, the ledger in which an entry failed (other
	// than for its position): later
	// entries of that topic in that ledger (or an earlier one) fail too.
	// Owned by the run goroutine.
	failed map[string]int64
}

func newCommitter(s *boltStore) *committer {
	c := &committer{wake: make(chan struct{}, 1), stop: make(chan struct{}), failed: map[string]int64{}}
	c.stopped.Add(1)
	go c.run(s)
	return c
}

// enqueue queues r; it reports false when the store is closed.
func (c *committer) enqueue(r *appendReq) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.queue = append(c.queue, r)
	c.waiting.Add(1)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// submit queues r and waits for its outcome.
func (c *committer) submit(r *appendReq) error {
	ch := make(chan error, 1)
	r.done = func(err error) { ch <- err }
	if !c.enqueue(r) {
		return ErrClosed
	}
	return <-ch
}

// submitAsync queues r; r.done gets its outcome (ErrClosed at once when
// the store is closed).
func (c *committer) submitAsync(r *appendReq) {
	if !c.enqueue(r) {
		r.done(ErrClosed)
	}
}

// close stops the committer after the commit in progress; appends still
// queued, and later ones, get ErrClosed.
func (c *committer) close() {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		close(c.stop)
	})
	c.stopped.Wait()
}

// take removes the next group from the queue: at most maxGroupEntries
// entries, and no more once it holds maxGroupBytes.
func (c *committer) take(group []*appendReq) []*appendReq {
	c.mu.Lock()
	defer c.mu.Unlock()
	size, n := 0, 0
	for n < len(c.queue) && n < maxGroupEntries && size < maxGroupBytes {
		group = append(group, c.queue[n])
		size += len(c.queue[n].value)
		n++
	}
	clear(c.queue[:n])
	c.queue = c.queue[n:]
	if len(c.queue) == 0 {
		c.queue = c.queue[:0:0] // let the backing array go
	}
	c.waiting.Add(int64(-n))
	return group
}

func (c *committer) run(s *boltStore) {
	defer c.stopped.Done()
	defer c.failQueued()
	group := make([]*appendReq, 0, 16)
	for {
		group = c.take(group[:0])
		if len(group) == 0 {
			select {
			case <-c.stop:
				return
			case <-c.wake:
			}
			continue
		}
		c.commit(s, group)
		clear(group)
		select {
		case <-c.stop:
			return
		default:
		}
	}
}

// failQueued answers what is still queued when the committer stops.
func (c *committer) failQueued() {
	c.mu.Lock()
	q := c.queue
	c.queue = nil
	c.mu.Unlock()
	for _, r := range q {
		r.done(ErrClosed)
	}
}

// commit writes group in one transaction. If that transaction fails (an
// entry out of order, bbolt refusing a value, a failed sync), nothing of it
// is kept and each entry is committed alone, so that one bad entry fails
// only its own append and the later ones of its topic and ledger.
func (c *committer) commit(s *boltStore, group []*appendReq) {
	if c.beforeCommit != nil {
		c.beforeCommit(len(group))
	}
	ok := group[:0:0]
	for _, r := range group {
		if err := c.afterFailure(r); err != nil {
			r.done(err)
			continue
		}
		ok = append(ok, r)
	}
	if len(ok) == 0 {
		return
	}
	err := s.update(func(tx *bolt.Tx) error {
		for _, r := range ok {
			if err := c.put(tx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		c.commits.Add(1)
		for _, r := range ok {
			c.succeeded(r)
			r.done(nil)
		}
		return
	}
	if len(ok) == 1 {
		c.noteFailure(ok[0], err)
		ok[0].done(err)
		return
	}
	for _, r := range ok {
		if err := c.afterFailure(r); err != nil {
			r.done(err)
			continue
		}
		err := s.update(func(tx *bolt.Tx) error { return c.put(tx, r) })
		if err == nil {
			c.commits.Add(1)
			c.succeeded(r)
		} else {
			c.noteFailure(r, err)
		}
		r.done(err)
	}
}

// put stores r's entry in tx.
func (c *committer) put(tx *bolt.Tx, r *appendReq) error {
	if c.refuse != nil {
		if err := c.refuse(r.topic, r.e); err != nil {
			return err
		}
	}
	return putEntry(tx, r)
}

// afterFailure refuses r when an earlier entry of its topic failed in r's
// ledger (or a later one).
func (c *committer) afterFailure(r *appendReq) error {
	if l, ok := c.failed[r.topic]; ok && r.e.Ledger <= l {
		return errorf(ErrOutOfOrder, "topic %q: %d:%d follows a failed entry of ledger %d", r.topic, r.e.Ledger, r.e.Entry, l)
	}
	return nil
}

// noteFailure records that r failed: unless it was refused for its
// position (then nothing after the topic's last stored entry changed),
// the later entries of its ledger must not be stored after the hole.
func (c *committer) noteFailure(r *appendReq, err error) {
	if !errors.Is(err, ErrOutOfOrder) {
		c.failed[r.topic] = r.e.Ledger
	}
}

// succeeded forgets a topic's failure once an entry of a later ledger is
// stored.
func (c *committer) succeeded(r *appendReq) {
	if l, ok := c.failed[r.topic]; ok && r.e.Ledger > l {
		delete(c.failed, r.topic)
	}
}
