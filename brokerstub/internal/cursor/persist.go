package cursor

import (
	"slices"
	"time"
)

// persist serializes the whole state as the new "last persisted" state.
func (c *Cursor) persist() {
	b, tr, nr, nb := encodeState(c.md, &c.ranges, c.bitmaps.entries, c.opts.MaxRanges, c.opts.MaxBatchIndexes)
	c.persisted = b
	c.persistedMD = c.md
	c.truncated = tr
	c.persistedRanges = nr
	c.persistedBatch = nb
	c.dirty = false
	c.persistNow = false
	c.lastFlush = c.opts.Now()
}

// Flush persists the cursor when it is dirty: it returns the serialized
// whole state (mark-delete, ranges capped by MaxRanges, bitmaps capped by
// MaxBatchIndexes; see Options), clears the dirty flag and remembers the
// bytes as the last persisted state (PersistedBytes). When the cursor is not
// dirty it returns nil, false and does nothing. The owner calls it on a
// graceful close, and stores the bytes where they outlive a restart. The
// returned slice must not be modified.
func (c *Cursor) Flush() (state []byte, ok bool) {
	if !c.dirty {
		return nil, false
	}
	c.persist()
	c.flushes++
	return c.persisted, true
}

// MaybeFlush is what the owning goroutine calls from its ticker and after
// processing acknowledgments. It flushes (as Flush) when the cursor is
// dirty and either
//   - FlushInterval has passed since the last flush by the injected clock
//     (Pulsar's periodic flush of a dirty cursor), or
//   - a change since the last flush was granted an immediate persist by the
//     mark-delete rate limiter (Pulsar persists mark-delete moves and
//     individual deletes right away unless the limiter denies it), or Reset
//     was called.
//
// A rate-limited change is never lost: it leaves the cursor dirty, and the
// periodic flush persists it. It returns nil, false when it did not flush.
func (c *Cursor) MaybeFlush() (state []byte, ok bool) {
	if !c.dirty {
		return nil, false
	}
	due := c.opts.FlushInterval > 0 && !c.opts.Now().Before(c.lastFlush.Add(c.opts.FlushInterval))
	if !due && !c.persistNow {
		return nil, false
	}
	return c.Flush()
}

// PersistedBytes returns the last persisted state: the bytes of the last
// Flush or MaybeFlush, or the state the cursor was created or restored
// from. A crash is modelled by Restore(PersistedBytes()). The returned slice
// must not be modified.
func (c *Cursor) PersistedBytes() []byte { return c.persisted }

// PersistedMarkDelete returns the mark-delete position of the last
// persisted state: where a restart after a crash resumes. It costs O(1).
func (c *Cursor) PersistedMarkDelete() Position { return c.persistedMD }

// Persisted returns the last persisted state as a plain snapshot (after
// truncation by the caps), for tests and inspection.
func (c *Cursor) Persisted() State {
	s, err := DecodeState(c.persisted)
	if err != nil {
		// The cursor only ever holds bytes it encoded or validated.
		panic("cursor: persisted state does not decode: " + err.Error())
	}
	return s
}

// Restore rebuilds a cursor from persisted state bytes (as returned by
// Flush, MaybeFlush or PersistedBytes), over the topic's layout, with opts
// (zero fields defaulted). Invalid bytes give a *StateError wrapping
// ErrCorruptState; Restore never panics and never allocates by a count the
// bytes claim beyond what they can hold. Ranges that the layout shows to be
// adjacent are merged and the mark-delete position moves across a range
// that follows it contiguously; if that changed anything the restored
// cursor is dirty, else it is clean. The bytes count as the last persisted
// state, at the time of the restore.
func Restore(state []byte, layout Layout, opts Options) (*Cursor, error) {
	d, err := decodeState(state)
	if err != nil {
		return nil, err
	}
	c := newCursor(layout, opts)
	c.md = d.md
	normalized := false
	for _, iv := range d.ranges {
		if f, ok := c.lastRange(); ok && adjacent(layout, f.hi, iv.lo) {
			c.extendLastRange(iv.hi)
			normalized = true
			continue
		}
		c.ranges.appendSorted(iv)
	}
	if c.advance() {
		normalized = true
	}
	// Keep only bitmaps of entries that are still partially acknowledged
	// (a merge can swallow the position of a bitmap that the layout does
	// not have).
	for _, e := range d.bitmaps {
		if c.IsAcked(e.pos) {
			normalized = true
			continue
		}
		c.bitmaps.entries = append(c.bitmaps.entries, e)
	}
	c.persisted = slices.Clone(state)
	c.persistedMD = d.md
	c.truncated = d.truncated
	c.persistedRanges = len(d.ranges)
	c.persistedBatch = len(d.bitmaps)
	c.lastFlush = c.opts.Now()
	c.dirty = normalized
	return c, nil
}

func (c *Cursor) lastRange() (interval, bool) {
	if c.ranges.n == 0 {
		return interval{}, false
	}
	blk := c.ranges.blocks[len(c.ranges.blocks)-1]
	return blk[len(blk)-1], true
}

func (c *Cursor) extendLastRange(hi Position) {
	blk := c.ranges.blocks[len(c.ranges.blocks)-1]
	blk[len(blk)-1].hi = hi
}

// Stats is a summary of a cursor for inspection.
type Stats struct {
	MarkDelete   Position // the mark-delete position
	Ranges       int      // individually deleted ranges now
	BatchEntries int      // entries with a partial-ack bitmap now
	Dirty        bool     // the state changed since it was last persisted

	LastFlush             time.Time // when the state was last persisted (or created/restored)
	Flushes               int64     // Flush/MaybeFlush calls that persisted
	Truncated             bool      // the last persisted state was cut by MaxRanges or MaxBatchIndexes
	PersistedRanges       int       // ranges in the last persisted state
	PersistedBatchEntries int       // bitmaps in the last persisted state
	RateLimited           int64     // changes whose immediate persist the rate limiter denied
}

// Stats returns a summary of the cursor.
func (c *Cursor) Stats() Stats {
	return Stats{
		MarkDelete:            c.md,
		Ranges:                c.ranges.Len(),
		BatchEntries:          c.bitmaps.Len(),
		Dirty:                 c.dirty,
		LastFlush:             c.lastFlush,
		Flushes:               c.flushes,
		Truncated:             c.truncated,
		PersistedRanges:       c.persistedRanges,
		PersistedBatchEntries: c.persistedBatch,
		RateLimited:           c.rateLimited,
	}
}
