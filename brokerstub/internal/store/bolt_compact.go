package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// Compaction of the bbolt file. bbolt reuses the pages that deletes free,
// but never gives them back to the file system, and a long run of deletes
// and large values fragments its free list so that new large values (they
// need contiguous pages) still grow the file: a churn soak saw the file go
// from 223 MiB to 1,484 MiB while the data in it stayed flat. So the store
// copies its live data into a new file (bbolt.Compact) and swaps it in,
// whenever the file's wasted space (free pages and the unused tail) is
// larger than both its live data and BoltOptions.CompactSlack: the file
// stays within 2x its live data plus the slack (plus bbolt's growth step of
// up to 16 MiB), and after deletes it shrinks to about its live data.
//
// Chosen over a file per ledger (deleted whole when its ledger goes): the
// layout, its crash safety (one fsynced bbolt transaction per change) and
// every existing data dir stay as they are, and the cost, a copy of the live
// data, is paid only once at least as much again has been freed.
//
// It runs at OpenBolt, and in the background after a delete (DeleteTopic,
// DeleteLedgersBefore) that leaves the file due, one compaction at a time.
// While it runs, every other operation of the store waits for it (it holds
// the store's lock exclusively): appends stall for the time it takes to
// copy the live data, about a second per few hundred MiB. Crash safety: the
// copy is written to "<path>.compacting", fsynced, and renamed over the
// file; a crash before the rename leaves the old file whole (the copy is
// removed at the next open), and after it the new file is.

// compactSuffix names the copy a compaction writes before it replaces the file.
const compactSuffix = ".compacting"

// compactTxBytes is how many bytes of keys and values one transaction of
// the copy holds (bbolt.Compact's txMaxSize).
const compactTxBytes = 16 << 20

// DefaultCompactSlack is BoltOptions.CompactSlack's default.
const DefaultCompactSlack = 32 << 20

// BoltOptions configure OpenBoltWith. The zero value gives the defaults.
type BoltOptions struct {
	// CompactSlack is the wasted space (free pages and unused tail) the
	// file may have beyond its live data before it is compacted. 0 means
	// DefaultCompactSlack (32 MiB); a negative value turns compaction off.
	CompactSlack int64
}

func (o BoltOptions) withDefaults() BoltOptions {
	if o.CompactSlack == 0 {
		o.CompactSlack = DefaultCompactSlack
	}
	return o
}

// compactor runs background compactions, one at a time.
type compactor struct {
	mu      sync.Mutex
	running bool
	stopped bool
	wg      sync.WaitGroup
	count   atomic.Int64 // compactions done (tests, inspection)
	lastErr atomic.Pointer[error]
}

// begin reports whether a compaction may start now; the caller then calls
// end when it is over.
func (c *compactor) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running || c.stopped {
		return false
	}
	c.running = true
	c.wg.Add(1)
	return true
}

func (c *compactor) end() {
	c.mu.Lock()
	c.running = false
	c.mu.Unlock()
	c.wg.Done()
}

// stop refuses later compactions and waits for a running one.
func (c *compactor) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.wg.Wait()
}

// compactIfDue starts, after a delete, a background compaction if the file
// is due for one, and then gives back the process's mapped pages of the
// file (releaseMapped).
func (s *boltStore) compactIfDue() {
	if !s.compact.begin() {
		return
	}
	go func() {
		defer s.compact.end()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.compactDue() {
			if err := s.compactNow(); err != nil {
				s.compact.lastErr.Store(&err)
			}
		}
		s.releaseMapped()
	}()
}

// FileUsage is what a bbolt store's file holds (BoltUsage).
type FileUsage struct {
	// File is the file's size; Live the bytes of the pages in use (File
	// less the free pages and the unused tail).
	File, Live int64
	// Compactions is the number of compactions since OpenBolt (the one at
	// open included).
	Compactions int64
}

// BoltUsage reports the file usage of a store opened by OpenBolt, and false
// for another store.
func BoltUsage(st Store) (FileUsage, bool) {
	s, ok := st.(*boltStore)
	if !ok {
		return FileUsage{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	file, live, err := s.usage()
	if err != nil {
		return FileUsage{}, false
	}
	return FileUsage{File: file, Live: live, Compactions: s.compact.count.Load()}, true
}

// usage returns the file's size and its live bytes. s.mu must be held.
func (s *boltStore) usage() (file, live int64, err error) {
	fi, err := os.Stat(s.path)
	if err != nil {
		return 0, 0, err
	}
	var highWater int64
	err = s.db.View(func(tx *bolt.Tx) error {
		highWater = tx.Size()
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return fi.Size(), max(highWater-int64(s.db.Stats().FreeAlloc), 0), nil
}

// compactDue reports whether the wasted space is over both the live data
// and the slack. s.mu must be held.
func (s *boltStore) compactDue() bool {
	if s.opts.CompactSlack < 0 {
		return false
	}
	file, live, err := s.usage()
	if err != nil {
		return false
	}
	waste := file - live
	return waste > live && waste > s.opts.CompactSlack
}

// compactNow copies the live data into a new file and swaps it in. s.mu
// must be held exclusively (or s not yet shared). On failure before the
// swap the old file stays in use; if the file cannot be opened again
// afterwards, the store is closed (ErrClosed) and the error returned.
func (s *boltStore) compactNow() error {
	tmp := s.path + compactSuffix
	_ = os.Remove(tmp)
	if err := s.copyTo(tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("store: compact %s: %w", s.path, err)
	}
	if err := s.db.Close(); err != nil {
		_ = os.Remove(tmp)
		return s.reopen(fmt.Errorf("store: compact %s: %w", s.path, err))
	}
	var swapErr error
	if err := os.Rename(tmp, s.path); err != nil {
		_ = os.Remove(tmp)
		swapErr = fmt.Errorf("store: compact %s: %w", s.path, err)
	} else {
		syncDir(filepath.Dir(s.path))
		s.compact.count.Add(1)
	}
	return s.reopen(swapErr)
}

// copyTo writes the live data of s into a new, fsynced bbolt file at path.
func (s *boltStore) copyTo(path string) error {
	dst, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      BoltLockTimeout,
		FreelistType: bolt.FreelistMapType,
		NoSync:       true, // one fsync at the end
	})
	if err != nil {
		return err
	}
	err = bolt.Compact(dst, s.db, compactTxBytes)
	if err == nil {
		err = dst.Sync()
	}
	return errors.Join(err, dst.Close())
}

// reopen opens the file again after a swap (or a failed one); prior is the
// error so far, returned with any error of the open.
func (s *boltStore) reopen(prior error) error {
	db, err := openBoltDB(s.path)
	if err != nil {
		// s.db stays the closed handle: every call gets ErrClosed.
		return errors.Join(prior, err)
	}
	s.db = db
	return prior
}

// syncDir fsyncs a directory so that a rename in it is durable; errors
// are ignored (some file systems cannot sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
