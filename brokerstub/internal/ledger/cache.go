package ledger

import (
	"sync"
	"sync/atomic"
)

// Cache is the budget for the entry bytes that the Ledgers of one broker
// keep in memory, Pulsar's managedLedgerCacheSizeMB: when the slabs
// (arena.go) of all Ledgers that share it hold more than the budget, the
// oldest slabs are dropped, down to 90 % of the budget (Pulsar's
// managedLedgerCacheEvictionWatermark), and their entries are read back
// from the store when they are read. A Ledger also drops the slabs whose
// entries every durable subscription has acknowledged (DropConsumed), as
// Pulsar evicts what its cursors have passed. Slabs are counted by their
// capacity, so the budget bounds what they take, unused tails included.
//
// Only a Ledger whose store can read entries back (store.EntryReader) uses
// its Cache; the store must then hold each entry once it is readable, which
// the bbolt store does. A Cache is safe for concurrent use: each Ledger is
// owned by its topic's goroutine, and a slab dropped by another topic's
// append is dropped atomically (a reader holding its bytes keeps them).
type Cache struct {
	budget int64

	mu         sync.Mutex
	size       int64 // bytes of the slabs in the list
	head, tail *slab // the slabs counted, oldest first

	evicted   atomic.Int64 // slabs dropped for the budget
	readBacks atomic.Int64 // entries read back from the store
}

// evictWatermark is the share of the budget that eviction brings the
// cache down to (Pulsar's managedLedgerCacheEvictionWatermark, 0.9).
const evictWatermark = 0.9

// NewCache returns a Cache of budget bytes; budget <= 0 keeps no entry
// bytes once they are in the store (every read goes to the store).
func NewCache(budget int64) *Cache { return &Cache{budget: max(budget, 0)} }

// CacheStats describe a Cache.
type CacheStats struct {
	// Budget is the Cache's budget; Size the capacity of the slabs it holds.
	Budget, Size int64
	// Evicted is the number of slabs dropped for the budget; ReadBacks the
	// number of entries read back from a store because their slab had been
	// dropped.
	Evicted, ReadBacks int64
}

// Stats returns the Cache's figures.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	size := c.size
	c.mu.Unlock()
	return CacheStats{Budget: c.budget, Size: size, Evicted: c.evicted.Load(), ReadBacks: c.readBacks.Load()}
}

// add counts s, whose bytes are set, and drops the oldest slabs while the
// cache is over its budget (s too, if it alone is).
func (c *Cache) add(s *slab) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.prev, s.next, s.cached = c.tail, nil, true
	if c.tail != nil {
		c.tail.next = s
	} else {
		c.head = s
	}
	c.tail = s
	c.size += s.size
	if c.size <= c.budget {
		return
	}
	low := int64(float64(c.budget) * evictWatermark)
	for c.head != nil && c.size > low {
		old := c.head
		c.unlink(old)
		old.bytes.Store(nil)
		c.evicted.Add(1)
	}
}

// remove uncounts s and drops its bytes (its ledger is gone, or its entries
// consumed).
func (c *Cache) remove(s *slab) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.cached {
		c.unlink(s)
	}
	s.bytes.Store(nil)
}

// unlink takes s out of the list. c.mu must be held.
func (c *Cache) unlink(s *slab) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		c.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		c.tail = s.prev
	}
	s.prev, s.next, s.cached = nil, nil, false
	c.size -= s.size
}
