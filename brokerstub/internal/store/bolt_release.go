package store

import bolt "go.etcd.io/bbolt"

// bbolt reads its file through a shared, read-only memory mapping, so every
// page a read touches (an entry read back for dispatch, a compaction's
// copy) stays in the process's resident set as file-backed memory until the
// kernel needs it: a churn soak saw the stub's RSS exceed its anonymous
// memory by 350-490 MiB of such pages. They are page cache, reclaimable,
// but they make a stub's RSS say nothing about its working set. So after a
// delete (when compactIfDue runs) the store tells the kernel it does not
// need the mapped pages (madvise MADV_DONTNEED): they leave the RSS, stay
// in the page cache, and a later read maps them again from there. bbolt
// writes with pwrite, never through the mapping, so nothing is lost.

// releaseMapped gives back the resident pages of the file's mapping. s.mu
// must be held; the read transaction keeps bbolt from remapping the file
// meanwhile, so the range is bbolt's mapping and nothing else.
func (s *boltStore) releaseMapped() {
	_ = s.db.View(func(tx *bolt.Tx) error {
		dontNeed(s.db.Info().Data, uintptr(tx.Size()))
		return nil
	})
}
