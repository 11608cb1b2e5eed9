package consumer

import "sync"

// Memory is a consumer memory budget: the bytes of the messages waiting in
// the receiver queues of the engines that share it (decompressed payloads;
// entries parked compressed count their compressed bytes), as package
// pulsar gives one to all consumers and readers of a client. It is apart
// from the producers' memory limit, so the two cannot wait on each other
// (apache/pulsar-client-go#1455: one limit shared by producers and
// consumers deadlocks when the application's handlers publish while their
// consumers' queues fill the limit).
//
// An engine never waits for the budget to accept what the broker already
// sent: bytes are counted when they are queued and given back when they
// leave the queue (handed out, withdrawn, dropped). What the budget
// decides is (see Engine.onEntry and grant):
//   - a compressed entry whose declared uncompressed size does not fit is
//     not decompressed: it is parked, compressed, behind the queue, until
//     the budget has room or its engine's queue is empty (with
//     Options.HoldOversized, empty and a receiver waiting);
//   - while the budget is used up, an engine that has something queued or
//     parked withholds its flow permits; they are sent once the budget has
//     room again, or once its queue is empty.
//
// So no engine starves for what others hold (an engine with an empty queue
// always gets its next message), and no engine waits on another: the
// budget can be exceeded by at most one message per engine, and not at
// all by messages no one receives when HoldOversized is set.
type Memory struct {
	limit int64

	mu      sync.Mutex
	used    int64
	waiting []chan struct{} // engines to wake at the next release
}

// NewMemory returns a budget of limit bytes; nil (no budget) when limit is
// not positive. A nil *Memory counts nothing and always has room.
func NewMemory(limit int64) *Memory {
	if limit <= 0 {
		return nil
	}
	return &Memory{limit: limit}
}

// Limit returns the budget's size in bytes (0 without a budget).
func (m *Memory) Limit() int64 {
	if m == nil {
		return 0
	}
	return m.limit
}

// Used returns the bytes counted now.
func (m *Memory) Used() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// charge counts n bytes, whether they fit or not.
func (m *Memory) charge(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	m.used += n
	m.mu.Unlock()
}

// release gives n bytes back and, once there is room, wakes the engines
// waiting for it.
func (m *Memory) release(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	m.used -= n
	var wake []chan struct{}
	if m.used < m.limit && len(m.waiting) > 0 {
		wake = m.waiting
		m.waiting = nil
	}
	m.mu.Unlock()
	for _, ch := range wake {
		select {
		case ch <- struct{}{}:
		default: // already signalled
		}
	}
}

// fits reports whether n more bytes fit now.
func (m *Memory) fits(n int64) bool {
	if m == nil {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used+n <= m.limit
}

// full reports whether the budget is used up.
func (m *Memory) full() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used >= m.limit
}

// wakeOnRelease makes the next release that leaves room signal ch (a
// channel of capacity 1 that its engine's loop selects on).
func (m *Memory) wakeOnRelease(ch chan struct{}) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.waiting {
		if c == ch {
			return
		}
	}
	m.waiting = append(m.waiting, ch)
}
