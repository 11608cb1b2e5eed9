package store

import (
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// Group commit of appended entries, as BookKeeper's journal does: the
// entries that arrive while a commit is being synced go into the next
// commit together, so one fsync covers all of them; an entry that arrives
// when no commit is running is committed at once (no added delay). Every
// AppendEntry returns only after the commit that holds its entry is synced,
// so nothing is acknowledged before it is durable.
//
// Many topics each appending one entry at a time (every topic has one
// goroutine, and it waits for its append) then share syncs instead of
// queueing behind one sync each.

// Bounds of one group: a commit holds at most maxGroupEntries entries and
// stops taking more once it holds maxGroupBytes of them.
const (
	maxGroupEntries = 512
	maxGroupBytes   = 32 << 20
)

// appendReq is one AppendEntry waiting for its commit.
type appendReq struct {
	topic string
	e     StoredEntry
	key   []byte
	value []byte
	done  chan error // receives the entry's outcome once, buffered
}

// committer runs the group commits of a boltStore.
type committer struct {
	reqs    chan *appendReq // unbuffered: a request is taken or Close wins
	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
	commits atomic.Int64 // write transactions committed for appends (tests)
	waiting atomic.Int64 // appends submitted and not yet taken into a group (tests)
	// beforeCommit, when set (tests), runs before each group commit with the
	// number of entries in it.
	beforeCommit func(n int)
}

func newCommitter(s *boltStore) *committer {
	c := &committer{reqs: make(chan *appendReq), stop: make(chan struct{})}
	c.stopped.Add(1)
	go c.run(s)
	return c
}

// submit hands r to the committer and waits for its outcome.
func (c *committer) submit(r *appendReq) error {
	c.waiting.Add(1)
	select {
	case c.reqs <- r:
	case <-c.stop:
		c.waiting.Add(-1)
		return ErrClosed
	}
	return <-r.done
}

// close stops the committer after the commit in progress; later appends get
// ErrClosed.
func (c *committer) close() {
	c.once.Do(func() { close(c.stop) })
	c.stopped.Wait()
}

func (c *committer) run(s *boltStore) {
	defer c.stopped.Done()
	group := make([]*appendReq, 0, 16)
	for {
		select {
		case <-c.stop:
			return
		case r := <-c.reqs:
			c.waiting.Add(-1)
			group = append(group[:0], r)
		}
		size := len(group[0].value)
	fill:
		for len(group) < maxGroupEntries && size < maxGroupBytes {
			select {
			case r := <-c.reqs:
				c.waiting.Add(-1)
				group = append(group, r)
				size += len(r.value)
			default:
				break fill
			}
		}
		c.commit(s, group)
		clear(group)
	}
}

// commit writes group in one transaction. If that transaction fails (an
// entry out of order, bbolt refusing a value, a failed sync), nothing of it
// is kept and each entry is committed alone, so that one bad entry fails
// only its own append.
func (c *committer) commit(s *boltStore, group []*appendReq) {
	if c.beforeCommit != nil {
		c.beforeCommit(len(group))
	}
	err := s.update(func(tx *bolt.Tx) error {
		for _, r := range group {
			if err := putEntry(tx, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || len(group) == 1 {
		if err == nil {
			c.commits.Add(1)
		}
		for _, r := range group {
			r.done <- err
		}
		return
	}
	for _, r := range group {
		err := s.update(func(tx *bolt.Tx) error { return putEntry(tx, r) })
		if err == nil {
			c.commits.Add(1)
		}
		r.done <- err
	}
}
