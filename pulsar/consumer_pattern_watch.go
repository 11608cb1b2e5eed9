package pulsar

import (
	"sync"

	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// maxQueuedUpdates bounds the topic-list updates a watcher queues between
// two turns of the discovery loop; past it they are dropped and the loop
// lists the namespace anew.
const maxQueuedUpdates = 4096

// topicWatch is a registered topic-list watcher: the connection's reader
// goroutine queues its updates, the discovery loop takes them.
type topicWatch struct {
	conn   *conn.Conn
	id     uint64
	notify chan struct{} // a signal: updates are queued
	gone   chan struct{} // closed when the connection closed

	mu      sync.Mutex
	updates []*proto.CommandWatchTopicUpdate
	lost    bool
	goneOne sync.Once
}

func newTopicWatch(c *conn.Conn, id uint64) *topicWatch {
	return &topicWatch{conn: c, id: id, notify: make(chan struct{}, 1), gone: make(chan struct{})}
}

// Update queues u; it never blocks.
func (w *topicWatch) Update(u *proto.CommandWatchTopicUpdate) {
	w.mu.Lock()
	if len(w.updates) < maxQueuedUpdates {
		w.updates = append(w.updates, u)
	} else {
		w.updates, w.lost = nil, true
	}
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// ConnectionClosed reports the watcher gone with its connection.
func (w *topicWatch) ConnectionClosed() { w.goneOne.Do(func() { close(w.gone) }) }

// take returns the queued updates, or lost when some were dropped.
func (w *topicWatch) take() (updates []*proto.CommandWatchTopicUpdate, lost bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	updates, lost = w.updates, w.lost
	w.updates, w.lost = nil, false
	return updates, lost
}
