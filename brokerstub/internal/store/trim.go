package store

import (
	"bytes"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Trimmer is implemented by both stores (NewMemory and OpenBolt): it
// removes a topic's oldest ledgers, as a broker deletes the ledgers its
// retention policy no longer keeps. It is a separate interface, like
// MetaStore, so that Store stays unchanged for its other users.
type Trimmer interface {
	// DeleteLedgersBefore durably removes every stored entry of topic whose
	// ledger id is below ledger. The ledger id counter is not touched, so
	// removed positions are never reused. Removing from a topic that does
	// not exist, or where nothing is below ledger, is not an error.
	DeleteLedgersBefore(topic string, ledger int64) error
}

func (m *memory) DeleteLedgersBefore(topic string, ledger int64) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	t := m.topics[topic]
	if t == nil {
		return nil
	}
	i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].Ledger >= ledger })
	if i == 0 {
		return nil
	}
	// A copy, so that the removed entries' buffers can be freed; snapshots
	// that Entries handed out keep the old array and stay valid.
	t.entries = append([]StoredEntry(nil), t.entries[i:]...)
	return nil
}

func (s *boltStore) DeleteLedgersBefore(topic string, ledger int64) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	if ledger <= 0 {
		return nil
	}
	end := entryKey(ledger, 0)
	err := s.update(func(tx *bolt.Tx) error {
		entries := nested(tx, topic, bucketEntries)
		if entries == nil {
			return nil
		}
		c := entries.Cursor()
		for k, _ := c.First(); k != nil && bytes.Compare(k, end) < 0; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.compactIfDue()
	}
	return err
}
