package pulsar

import (
	"context"
	"sync"
)

// memoryLimit counts the bytes producers hold until the broker acknowledges
// them. Reservations block while the limit is reached; a single message
// larger than the whole limit can never fit and is refused outright.
type memoryLimit struct {
	limit int64 // <= 0: no limit

	mu      sync.Mutex
	used    int64
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
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used+n > m.limit {
		return false
	}
	m.used += n
	return true
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
		m.mu.Lock()
		if m.used+n <= m.limit {
			m.used += n
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

// release returns n bytes.
func (m *memoryLimit) release(n int64) {
	if m.limit <= 0 || n == 0 {
		return
	}
	m.mu.Lock()
	m.used -= n
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// inUse returns the bytes currently reserved.
func (m *memoryLimit) inUse() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}
