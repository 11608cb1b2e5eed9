package pulsar

import (
	"context"
	"sync"
	"sync/atomic"
)

// memoryLimit counts the bytes producers hold until the broker acknowledges
// them. Reservations block while the limit is reached; a single message
// larger than the whole limit can never fit and is refused outright. Every
// message reserves and every receipt releases, so both are atomic
// operations on used; mu and changed are for the waits.
type memoryLimit struct {
	limit int64 // <= 0: no limit

	used    atomic.Int64
	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever used drops
}

func newMemoryLimit(limit int64) *memoryLimit {
	return &memoryLimit{limit: limit, changed: make(chan struct{})}
}

// tryReserve reserves n bytes if they fit now.
func (m *memoryLimit) tryReserve(n int64) bool {
	if m.limit <= 0 {
		return true
	}
	for {
		used := m.used.Load()
		if used+n > m.limit {
			return false
		}
		if m.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// reserve waits until n bytes fit; it fails at once with ErrMessageTooLarge
// when n exceeds the limit itself.
func (m *memoryLimit) reserve(ctx context.Context, n int64) error {
	if m.limit <= 0 {
		return nil
	}
	if n > m.limit {
		return ErrMessageTooLarge
	}
	for {
		if m.tryReserve(n) {
			return nil
		}
		// A release after this check closes the channel taken here: it
		// closes under mu, after lowering used.
		m.mu.Lock()
		if m.tryReserve(n) {
			m.mu.Unlock()
			return nil
		}
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// add reserves n bytes whether or not they fit.
func (m *memoryLimit) add(n int64) {
	if m.limit <= 0 || n <= 0 {
		return
	}
	m.used.Add(n)
}

// release returns n bytes.
func (m *memoryLimit) release(n int64) {
	if m.limit <= 0 || n == 0 {
		return
	}
	m.used.Add(-n)
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// inUse returns the bytes currently reserved.
func (m *memoryLimit) inUse() int64 { return m.used.Load() }
