package store

import (
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// EntryReader is implemented by both stores: it reads one stored entry
// back, for a ledger that keeps only some entries' bytes in memory (its
// cache budget) and reads the others from the store for dispatch. It is a
// separate interface, like Trimmer, so that Store stays unchanged.
type EntryReader interface {
	// ReadEntry returns the stored entry of topic at ledger:entry, and
	// false when there is none (never stored, trimmed, or the topic
	// deleted). Its Meta and Payload are the caller's: a copy (OpenBolt)
	// or the slices the store keeps, which nobody modifies (NewMemory).
	ReadEntry(topic string, ledger, entry int64) (StoredEntry, bool, error)
}

func (m *memory) ReadEntry(topic string, ledger, entry int64) (StoredEntry, bool, error) {
	if err := checkName("topic", topic); err != nil {
		return StoredEntry{}, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return StoredEntry{}, false, ErrClosed
	}
	t := m.topics[topic]
	if t == nil {
		return StoredEntry{}, false, nil
	}
	i := sort.Search(len(t.entries), func(i int) bool { return !after(ledger, entry, t.entries[i].Ledger, t.entries[i].Entry) })
	if i == len(t.entries) || t.entries[i].Ledger != ledger || t.entries[i].Entry != entry {
		return StoredEntry{}, false, nil
	}
	return t.entries[i], true, nil
}

func (s *boltStore) ReadEntry(topic string, ledger, entry int64) (StoredEntry, bool, error) {
	if err := checkName("topic", topic); err != nil {
		return StoredEntry{}, false, err
	}
	if ledger < 0 || entry < 0 {
		return StoredEntry{}, false, nil
	}
	var e StoredEntry
	found := false
	err := s.view(func(tx *bolt.Tx) error {
		entries := nested(tx, topic, bucketEntries)
		if entries == nil {
			return nil
		}
		v := entries.Get(entryKey(ledger, entry))
		if v == nil {
			return nil
		}
		e.Ledger, e.Entry = ledger, entry
		if err := decodeEntryValue(v, &e); err != nil {
			return fmt.Errorf("entry %d:%d: %w", ledger, entry, err)
		}
		found = true
		return nil
	})
	if err != nil {
		return StoredEntry{}, false, err
	}
	return e, found, nil
}
