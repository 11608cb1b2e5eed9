package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// BoltLockTimeout is how long OpenBolt waits for the file lock that another
// open handle (in this or another process) holds before it gives up.
const BoltLockTimeout = 5 * time.Second

// Layout of a bbolt store. Top-level buckets:
//
//	meta        "format" -> boltFormat (one byte)
//	topics      one nested bucket per topic, holding:
//	              entries  position key -> entry value (see bolt_codec.go)
//	              cursors  subscription -> cursor state
//	ledger-ids  topic -> highest ledger id returned or stored (uint64);
//	            kept across DeleteTopic
//	partitions  topic -> partition count (uint64)
var (
	bucketMeta       = []byte("meta")
	bucketTopics     = []byte("topics")
	bucketLedgerIDs  = []byte("ledger-ids")
	bucketPartitions = []byte("partitions")
	bucketEntries    = []byte("entries")
	bucketCursors    = []byte("cursors")
	keyFormat        = []byte("format")
	// keyLastLedger (in bucketMeta) holds the highest ledger id of any
	// topic; a store written before it existed has the per-topic counters
	// only, and their maximum stands in.
	keyLastLedger = []byte("last-ledger-id")
)

// boltFormat is the version of the layout above.
const boltFormat = 1

// boltStore is the Store kept in a bbolt file. bbolt serialises write
// transactions and fsyncs on every commit, so every method that changes
// anything is durable when it returns. Appended entries that arrive
// together share one commit (bolt_group.go).
type boltStore struct {
	// mu guards db: every transaction holds it shared, and compaction
	// (bolt_compact.go) holds it exclusively while it swaps the file.
	mu      sync.RWMutex
	db      *bolt.DB
	path    string
	opts    BoltOptions
	group   *committer // group commit of AppendEntry (bolt_group.go)
	compact compactor  // background compaction (bolt_compact.go)
}

// OpenBolt opens, or creates, the bbolt database file at path (its parent
// directory is created if missing) and returns a Store backed by it. Every
// change is fsynced before the method returns, so the data survives kill -9
// of the process. Entries appended while a commit is being synced — by
// different topics, or queued by one topic with AppendEntryAsync — share
// the next commit and its one fsync, as BookKeeper's journal groups them; a
// lone entry is committed at once. Only one Store may have the file open at a time: OpenBolt waits up
// to BoltLockTimeout for the file lock. Close the Store to release it.
//
// Entries runs in one read transaction for the whole replay; a write that
// must grow the file meanwhile waits for it to end. Replays happen when
// topics load, so this is harmless for a test broker.
//
// The file is compacted (bolt_compact.go) at open and after deletes when
// its free space exceeds both its live data and BoltOptions.CompactSlack.
func OpenBolt(path string) (Store, error) { return OpenBoltWith(path, BoltOptions{}) }

// OpenBoltWith is OpenBolt with options; the zero BoltOptions are
// OpenBolt's defaults.
func OpenBoltWith(path string, opts BoltOptions) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	opts = opts.withDefaults()
	// A compaction that a crash interrupted left its copy: the file
	// itself is whole (the copy replaces it only once complete).
	_ = os.Remove(path + compactSuffix)
	db, err := openBoltDB(path)
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		switch v := meta.Get(keyFormat); {
		case v == nil:
			if err := meta.Put(keyFormat, []byte{boltFormat}); err != nil {
				return err
			}
		case len(v) != 1 || v[0] != boltFormat:
			return errorf(ErrCorrupt, "unknown format %x", v)
		}
		for _, name := range [][]byte{bucketTopics, bucketLedgerIDs, bucketPartitions} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: init %s: %w", path, err), db.Close())
	}
	s := &boltStore{db: db, path: path, opts: opts}
	if s.compactDue() {
		if err := s.compactNow(); err != nil {
			return nil, errors.Join(err, s.db.Close())
		}
	}
	s.group = newCommitter(s)
	return s, nil
}

// openBoltDB opens the bbolt file at path with the store's settings.
func openBoltDB(path string) (*bolt.DB, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      BoltLockTimeout,
		FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// update runs fn in a write transaction and maps bbolt's "not open" to ErrClosed.
func (s *boltStore) update(fn func(tx *bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return mapBoltErr(s.db.Update(fn))
}

// view runs fn in a read transaction and maps bbolt's "not open" to ErrClosed.
func (s *boltStore) view(fn func(tx *bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return mapBoltErr(s.db.View(fn))
}

// mapBoltErr turns bbolt's error for a closed database into ErrClosed.
func mapBoltErr(err error) error {
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// topicBucket returns the bucket of topic, creating it with its nested
// buckets. tx must be writable.
func topicBucket(tx *bolt.Tx, topic string) (*bolt.Bucket, error) {
	t, err := tx.Bucket(bucketTopics).CreateBucketIfNotExists([]byte(topic))
	if err != nil {
		return nil, fmt.Errorf("store: topic %q: %w", topic, err)
	}
	for _, name := range [][]byte{bucketEntries, bucketCursors} {
		if _, err := t.CreateBucketIfNotExists(name); err != nil {
			return nil, fmt.Errorf("store: topic %q: %w", topic, err)
		}
	}
	return t, nil
}

// nested returns the nested bucket name of topic, or nil if the topic does
// not exist. It works in read and write transactions.
func nested(tx *bolt.Tx, topic string, name []byte) *bolt.Bucket {
	t := tx.Bucket(bucketTopics).Bucket([]byte(topic))
	if t == nil {
		return nil
	}
	return t.Bucket(name)
}

// ledgerID returns the stored ledger id counter of topic (0 if none).
func ledgerID(tx *bolt.Tx, topic string) (int64, error) {
	return decodeLedgerID(tx.Bucket(bucketLedgerIDs).Get([]byte(topic)))
}

// decodeLedgerID decodes a stored ledger id counter (0 for nil).
func decodeLedgerID(v []byte) (int64, error) {
	if v == nil {
		return 0, nil
	}
	n, err := decodeUint64(v)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64 {
		return 0, errorf(ErrCorrupt, "ledger id %d", n)
	}
	return int64(n), nil
}

// putLedgerID stores the ledger id counter of topic, and raises the
// store's highest ledger id to id.
func putLedgerID(tx *bolt.Tx, topic string, id int64) error {
	if err := tx.Bucket(bucketLedgerIDs).Put([]byte(topic), encodeUint64(uint64(id))); err != nil {
		return err
	}
	last, err := lastLedgerID(tx)
	if err != nil || id <= last {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyLastLedger, encodeUint64(uint64(id)))
}

// lastLedgerID returns the highest ledger id of any topic (0 if none).
func lastLedgerID(tx *bolt.Tx) (int64, error) {
	if v := tx.Bucket(bucketMeta).Get(keyLastLedger); v != nil {
		return decodeLedgerID(v)
	}
	var last int64
	err := tx.Bucket(bucketLedgerIDs).ForEach(func(k, _ []byte) error {
		id, err := ledgerID(tx, string(k))
		last = max(last, id)
		return err
	})
	return last, err
}

func (s *boltStore) AppendEntry(topic string, e StoredEntry) error {
	if err := checkEntry(topic, e); err != nil {
		return err
	}
	value, err := encodeEntryValue(e)
	if err != nil {
		return err
	}
	return s.group.submit(&appendReq{topic: topic, e: e, key: entryKey(e.Ledger, e.Entry), value: value})
}

// AppendEntryAsync queues e for the next group commit and returns at once;
// done gets AppendEntry's outcome once the entry is durable or failed
// (bolt_group.go).
func (s *boltStore) AppendEntryAsync(topic string, e StoredEntry, done func(error)) {
	if err := checkEntry(topic, e); err != nil {
		done(err)
		return
	}
	value, err := encodeEntryValue(e)
	if err != nil {
		done(err)
		return
	}
	s.group.submitAsync(&appendReq{topic: topic, e: e, key: entryKey(e.Ledger, e.Entry), value: value, done: done})
}

// putEntry stores r's entry in tx, after the topic's last entry.
func putEntry(tx *bolt.Tx, r *appendReq) error {
	t, err := topicBucket(tx, r.topic)
	if err != nil {
		return err
	}
	entries := t.Bucket(bucketEntries)
	entries.FillPercent = 1 // append-only: fill pages completely
	e := r.e
	if k, _ := entries.Cursor().Last(); k != nil {
		l, n, err := decodeEntryKey(k)
		if err != nil {
			return err
		}
		if !after(e.Ledger, e.Entry, l, n) {
			return errorf(ErrOutOfOrder, "topic %q: %d:%d after %d:%d", r.topic, e.Ledger, e.Entry, l, n)
		}
	}
	if err := entries.Put(r.key, r.value); err != nil {
		return fmt.Errorf("store: topic %q: %w", r.topic, err)
	}
	id, err := ledgerID(tx, r.topic)
	if err != nil {
		return err
	}
	if e.Ledger > id {
		return putLedgerID(tx, r.topic, e.Ledger)
	}
	return nil
}

func (s *boltStore) Entries(topic string, fn func(StoredEntry) error) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	return s.view(func(tx *bolt.Tx) error {
		entries := nested(tx, topic, bucketEntries)
		if entries == nil {
			return nil
		}
		c := entries.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var e StoredEntry
			var err error
			if e.Ledger, e.Entry, err = decodeEntryKey(k); err != nil {
				return err
			}
			if err := decodeEntryValue(v, &e); err != nil {
				return fmt.Errorf("entry %d:%d: %w", e.Ledger, e.Entry, err)
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *boltStore) NewLedgerID(topic string) (int64, error) {
	if err := checkName("topic", topic); err != nil {
		return 0, err
	}
	var id int64
	err := s.update(func(tx *bolt.Tx) error {
		if _, err := topicBucket(tx, topic); err != nil {
			return err
		}
		last, err := lastLedgerID(tx)
		if err != nil {
			return err
		}
		own, err := ledgerID(tx, topic)
		if err != nil {
			return err
		}
		if id, err = nextLedgerID(topic, max(last, own)); err != nil {
			return err
		}
		return putLedgerID(tx, topic, id)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func (s *boltStore) Topics() ([]string, error) {
	topics := []string{}
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTopics).ForEachBucket(func(k []byte) error {
			topics = append(topics, string(k))
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return topics, nil
}

func (s *boltStore) DeleteTopic(topic string) error {
	if err := checkName("topic", topic); err != nil {
		return err
	}
	err := s.update(func(tx *bolt.Tx) error {
		err := tx.Bucket(bucketTopics).DeleteBucket([]byte(topic))
		if errors.Is(err, bolterrors.ErrBucketNotFound) {
			return nil
		}
		return err
	})
	if err == nil {
		s.compactIfDue()
	}
	return err
}

func (s *boltStore) SaveCursor(topic, sub string, state []byte) error {
	if err := checkCursorNames(topic, sub); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		t, err := topicBucket(tx, topic)
		if err != nil {
			return err
		}
		return t.Bucket(bucketCursors).Put([]byte(sub), cloneNonNil(state))
	})
}

func (s *boltStore) LoadCursor(topic, sub string) ([]byte, bool, error) {
	if err := checkCursorNames(topic, sub); err != nil {
		return nil, false, err
	}
	var state []byte
	err := s.view(func(tx *bolt.Tx) error {
		if cursors := nested(tx, topic, bucketCursors); cursors != nil {
			if v := cursors.Get([]byte(sub)); v != nil {
				state = cloneNonNil(v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return state, state != nil, nil
}

func (s *boltStore) Cursors(topic string) (map[string][]byte, error) {
	if err := checkName("topic", topic); err != nil {
		return nil, err
	}
	out := make(map[string][]byte)
	err := s.view(func(tx *bolt.Tx) error {
		cursors := nested(tx, topic, bucketCursors)
		if cursors == nil {
			return nil
		}
		return cursors.ForEach(func(k, v []byte) error {
			out[string(k)] = cloneNonNil(v)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *boltStore) DeleteCursor(topic, sub string) error {
	if err := checkCursorNames(topic, sub); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		cursors := nested(tx, topic, bucketCursors)
		if cursors == nil {
			return nil
		}
		return cursors.Delete([]byte(sub))
	})
}

func (s *boltStore) SetPartitions(topic string, n int) error {
	if err := checkPartitions(topic, n); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPartitions)
		if n == 0 {
			return b.Delete([]byte(topic))
		}
		return b.Put([]byte(topic), encodeUint64(uint64(n)))
	})
}

func (s *boltStore) Partitions() (map[string]int, error) {
	out := make(map[string]int)
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPartitions).ForEach(func(k, v []byte) error {
			n, err := decodeUint64(v)
			if err != nil {
				return err
			}
			if n > math.MaxInt32 {
				return errorf(ErrCorrupt, "partition count %d", n)
			}
			out[string(k)] = int(n)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *boltStore) Close() error {
	s.group.close()
	s.compact.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.Close()
}
