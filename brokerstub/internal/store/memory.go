package store

import (
	"maps"
	"slices"
	"sync"
)

// memory is the in-memory Store. One mutex guards everything: each call
// holds it only for a few map and slice operations, and payloads are never
// copied under it.
type memory struct {
	mu         sync.RWMutex
	schemas    map[string][]byte // SchemaStore (memory_schema.go); nil until first PutSchemas
	closed     bool
	topics     map[string]*memTopic
	ledgerIDs  map[string]int64 // kept across DeleteTopic
	lastLedger int64            // the highest ledger id of any topic
	partitions map[string]int
	meta       map[string][]byte // MetaStore (memory_meta.go); nil until first PutMeta
}

// memTopic is the stored state of one topic.
type memTopic struct {
	entries []StoredEntry // in position order; only ever appended to
	cursors map[string][]byte
}

// NewMemory returns an empty in-memory Store, safe for concurrent use. Its
// data lives as long as the returned value, so a broker that keeps it across
// Restart() and Crash() finds everything again; the broker must therefore
// not Close it on a restart, because Close discards all data. AppendEntry
// keeps e.Meta and e.Payload without copying them (see the package
// documentation on ownership).
func NewMemory() Store {
	return &memory{
		topics:     make(map[string]*memTopic),
		ledgerIDs:  make(map[string]int64),
		partitions: make(map[string]int),
	}
}

// topic returns the state of name, creating it. The caller holds mu for writing.
func (m *memory) topic(name string) *memTopic {
	t := m.topics[name]
	if t == nil {
		t = &memTopic{cursors: make(map[string][]byte)}
		m.topics[name] = t
	}
	return t
}

func (m *memory) AppendEntry(topic string, e StoredEntry) error {
	if err := checkEntry(topic, e); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	t := m.topic(topic)
	if n := len(t.entries); n > 0 {
		last := t.entries[n-1]
		if !after(e.Ledger, e.Entry, last.Ledger, last.Entry) {
			return errorf(ErrOutOfOrder, "topic %q: %d:%d after %d:%d", topic, e.Ledger, e.Entry, last.Ledger, last.Entry)
		}
	}
	t.entries = append(t.entries, e)
	if e.Ledger > m.ledgerIDs[topic] {
		m.ledgerIDs[topic] = e.Ledger
	}
	m.lastLedger = max(m.lastLedger, e.Ledger)
	return nil
}

func (m *memory) Entries(topic string, fn func(StoredEntry) error) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return ErrClosed
	}
	var entries []StoredEntry
	if t := m.topics[topic]; t != nil {
		// Appends never touch elements below len, so this snapshot stays
		// valid without the lock, and fn may take as long as it likes.
		entries = t.entries[:len(t.entries):len(t.entries)]
	}
	m.mu.RUnlock()
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (m *memory) NewLedgerID(topic string) (int64, error) {
	if err := checkName("topic", topic); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	id, err := nextLedgerID(topic, max(m.lastLedger, m.ledgerIDs[topic]))
	if err != nil {
		return 0, err
	}
	m.ledgerIDs[topic], m.lastLedger = id, id
	m.topic(topic)
	return id, nil
}

func (m *memory) Topics() ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	topics := slices.AppendSeq(make([]string, 0, len(m.topics)), maps.Keys(m.topics))
	slices.Sort(topics)
	return topics, nil
}

func (m *memory) DeleteTopic(topic string) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	delete(m.topics, topic)
	return nil
}

func (m *memory) SaveCursor(topic, sub string, state []byte) error {
	if err := checkCursorNames(topic, sub); err != nil {
		return err
	}
	state = cloneNonNil(state)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.topic(topic).cursors[sub] = state
	return nil
}

func (m *memory) LoadCursor(topic, sub string) ([]byte, bool, error) {
	if err := checkCursorNames(topic, sub); err != nil {
		return nil, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, false, ErrClosed
	}
	t := m.topics[topic]
	if t == nil {
		return nil, false, nil
	}
	state, ok := t.cursors[sub]
	if !ok {
		return nil, false, nil
	}
	return cloneNonNil(state), true, nil
}

func (m *memory) Cursors(topic string) (map[string][]byte, error) {
	if err := checkName("topic", topic); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	out := make(map[string][]byte)
	if t := m.topics[topic]; t != nil {
		for sub, state := range t.cursors {
			out[sub] = cloneNonNil(state)
		}
	}
	return out, nil
}

func (m *memory) DeleteCursor(topic, sub string) error {
	if err := checkCursorNames(topic, sub); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if t := m.topics[topic]; t != nil {
		delete(t.cursors, sub)
	}
	return nil
}

func (m *memory) SetPartitions(topic string, n int) error {
	if err := checkPartitions(topic, n); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if n == 0 {
		delete(m.partitions, topic)
	} else {
		m.partitions[topic] = n
	}
	return nil
}

func (m *memory) Partitions() (map[string]int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	return maps.Clone(m.partitions), nil
}

func (m *memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.topics, m.ledgerIDs, m.partitions = nil, nil, nil
	return nil
}

// cloneNonNil copies b, returning an empty non-nil slice for an empty b.
func cloneNonNil(b []byte) []byte {
	return append([]byte{}, b...)
}
