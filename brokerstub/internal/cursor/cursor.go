package cursor

import (
	"slices"
	"time"
)

// Cursor is one subscription's acknowledgment state: the mark-delete
// position, the individually deleted ranges after it, and batch-index
// bitmaps of partially acknowledged entries; plus what was last persisted.
//
// A Cursor is owned by one goroutine (the topic's) and is NOT safe for
// concurrent use; the Layout is called from that goroutine only.
type Cursor struct {
	layout  Layout
	opts    Options
	limiter *rateLimiter

	md      Position
	ranges  rangeSet
	bitmaps bitmapSet

	dirty      bool // state differs from (or may differ from) persisted
	persistNow bool // a change asked for an immediate persist and the limiter granted it

	persisted       []byte   // last persisted state (see Flush)
	persistedMD     Position // its mark-delete position
	lastFlush       time.Time
	flushes         int64
	truncated       bool // persisted was cut by MaxRanges or MaxBatchIndexes
	persistedRanges int
	persistedBatch  int
	rateLimited     int64
}

// New returns a cursor whose mark-delete position is markDelete (every
// entry <= markDelete is acknowledged; it need not exist: a position before
// the first entry means "nothing acknowledged"). The initial state counts
// as persisted at creation, as Pulsar persists a new cursor's position when
// it creates it; the cursor starts clean. Zero fields of opts get their
// defaults (see Options).
func New(markDelete Position, layout Layout, opts Options) *Cursor {
	c := newCursor(layout, opts)
	c.md = markDelete
	c.persist()
	return c
}

func newCursor(layout Layout, opts Options) *Cursor {
	opts = opts.withDefaults()
	return &Cursor{layout: layout, opts: opts, limiter: newRateLimiter(opts.MarkDeleteRate)}
}

// changed records an acknowledgment that changed the state: the cursor is
// dirty, and, as Pulsar's asyncDelete/asyncMarkDelete do, the change asks
// the mark-delete rate limiter for an immediate persist; when it is denied
// the cursor simply stays dirty for the periodic flush.
func (c *Cursor) changed() {
	c.dirty = true
	if c.persistNow {
		return
	}
	if c.limiter.tryAcquire(c.opts.Now()) {
		c.persistNow = true
	} else {
		c.rateLimited++
	}
}

// AckIndividual acknowledges the entry at p (a nil ackSet), or, with an
// ackSet, the batch indexes of p whose bit is CLEAR in ackSet: the stored
// bitmap is ANDed with ackSet (Pulsar's wire meaning: ackSet lists the
// indexes still unacknowledged). batchSize is the number of messages in the
// entry; bits at or beyond it are ignored, words missing from ackSet count
// as zero, and a bitmap that becomes all zero acknowledges the whole entry.
//
// It is a no-op (false) when p <= mark-delete, p is already fully
// acknowledged, p is not a position of the layout, the ackSet acknowledges
// nothing new, or an ackSet comes with batchSize < 1. It reports whether the
// state changed; every change marks the cursor dirty, including a bitmap
// change while no range exists (the state apache/pulsar#26498 forgets).
func (c *Cursor) AckIndividual(p Position, ackSet []int64, batchSize int) (changed bool) {
	if !c.md.Less(p) || c.ranges.Contains(p) || !exists(c.layout, p) {
		return false
	}
	if ackSet != nil {
		if batchSize < 1 {
			return false
		}
		res, ch := andAckSet(c.bitmaps.Get(p), ackSet, batchSize)
		if !ch {
			return false
		}
		if res != nil {
			c.bitmaps.Set(p, res)
			c.changed() // a bitmap-only change is a change (apache/pulsar#26498)
			return true
		}
	}
	c.bitmaps.Delete(p)
	c.markAcked(p)
	c.changed()
	return true
}

// markAcked records the fully acknowledged entry p (> mark-delete, not yet
// in the ranges): the mark-delete position moves to it when it is the next
// entry, then across any range that follows contiguously; otherwise p joins
// the ranges.
func (c *Cursor) markAcked(p Position) {
	if adjacent(c.layout, c.md, p) {
		c.md = p
		c.advance()
		return
	}
	c.ranges.Add(c.layout, p)
}

// advance moves the mark-delete position across the ranges that follow it
// contiguously, and reports whether it moved.
func (c *Cursor) advance() bool {
	moved := false
	for {
		f, ok := c.ranges.First()
		if !ok || !adjacent(c.layout, c.md, f.lo) {
			break
		}
		c.md = f.hi
		c.ranges.RemoveFirst()
		moved = true
	}
	if moved {
		c.bitmaps.DropThrough(c.md)
	}
	return moved
}

// AckCumulative acknowledges every entry up to and including p (a nil
// ackSet), or every entry before p plus the batch indexes of p whose bit is
// clear in ackSet (a cumulative ack up to a batch index): then the
// mark-delete position moves to Prev(p) and p keeps a bitmap. ackSet and
// batchSize mean what they mean for AckIndividual; the bitmap is ANDed with
// what is stored, so a later cumulative ack that sets bits already cleared
// never re-sets them (no rollback, Pulsar PR #18042).
//
// A cumulative ack of p <= mark-delete, of a p that is not a position of the
// layout, or with an ackSet and batchSize < 1, is ignored. Ranges and
// bitmaps at or before the new mark-delete position are dropped. It reports
// whether the state changed.
func (c *Cursor) AckCumulative(p Position, ackSet []int64, batchSize int) (changed bool) {
	if !c.md.Less(p) || (ackSet != nil && batchSize < 1) || !exists(c.layout, p) {
		return false
	}
	if ackSet != nil && !c.ranges.Contains(p) {
		res, bmChanged := andAckSet(c.bitmaps.Get(p), ackSet, batchSize)
		if res != nil || !bmChanged {
			// p stays partially (or not at all) acknowledged.
			if prev, ok := c.layout.Prev(p); ok && c.md.Less(prev) {
				c.md = prev
				c.ranges.DropThrough(c.layout, prev)
				c.bitmaps.DropThrough(prev)
				changed = true
			}
			if bmChanged {
				c.bitmaps.Set(p, res)
				changed = true
			}
			if changed {
				c.changed()
			}
			return changed
		}
	}
	c.md = p
	c.ranges.DropThrough(c.layout, p)
	c.bitmaps.DropThrough(p)
	c.advance()
	c.changed()
	return true
}

// Reset moves the cursor for a seek to p: the mark-delete position becomes
// Prev(p) (or the position just before p when no entry precedes p: "before
// the first entry"), every range and bitmap is cleared, and a non-nil
// ackSet is stored as p's bitmap (a batch-index seek: bits [0, batchIndex)
// cleared; an all-zero ackSet acknowledges p whole). p need not exist (a
// seek past the last entry). Reset always marks the cursor dirty and, as
// Pulsar's resetCursor persists at once, asks for an immediate persist that
// the rate limiter does not throttle.
func (c *Cursor) Reset(p Position, ackSet []int64) {
	if prev, ok := c.layout.Prev(p); ok {
		c.md = prev
	} else {
		c.md = justBefore(p)
	}
	c.ranges.Clear()
	c.bitmaps.Clear()
	if ackSet != nil && exists(c.layout, p) {
		if w := trimWords(slices.Clone(ackSet)); w != nil {
			c.bitmaps.Set(p, w)
		} else {
			c.md = p
		}
	}
	c.dirty = true
	c.persistNow = true
}

// IsAcked reports whether the whole entry at p is acknowledged.
func (c *Cursor) IsAcked(p Position) bool {
	return !c.md.Less(p) || c.ranges.Contains(p)
}

// AckSet returns a copy of p's partial-ack bitmap in ack_set form (a set bit
// = batch index not yet acknowledged), for dispatch to send with the entry;
// nil when p has no partial bitmap (nothing or everything acknowledged).
func (c *Cursor) AckSet(p Position) []int64 {
	if c.IsAcked(p) {
		return nil
	}
	return slices.Clone(c.bitmaps.Get(p))
}

// MarkDelete returns the mark-delete position: every entry <= it is
// acknowledged.
func (c *Cursor) MarkDelete() Position { return c.md }

// UnackedInEntry returns how many messages of the entry at p are not yet
// acknowledged, so dispatch counts permits only for those: 0 when the entry
// is acknowledged, the popcount of its bitmap within batchSize when it is
// partially acknowledged, else batchSize. A batchSize < 1 is taken as 1 (an
// entry that is not a batch).
func (c *Cursor) UnackedInEntry(p Position, batchSize int) int {
	batchSize = max(batchSize, 1)
	if c.IsAcked(p) {
		return 0
	}
	if w := c.bitmaps.Get(p); w != nil {
		return popcount(w, batchSize)
	}
	return batchSize
}

// NextUnacked returns the first position after `after` (and after the
// mark-delete position) whose entry is not fully acknowledged; false when
// the layout has none. Cost: O(log ranges) plus one Layout.Next per range
// skipped (at most one, ranges being non-adjacent).
func (c *Cursor) NextUnacked(after Position) (Position, bool) {
	if after.Less(c.md) {
		after = c.md
	}
	q, ok := c.layout.Next(after)
	for ok {
		iv, in := c.ranges.find(q)
		if !in {
			return q, true
		}
		q, ok = c.layout.Next(iv.hi)
	}
	return Position{}, false
}

// Backlog returns the number of entries up to and including last that are
// not fully acknowledged (a partially acknowledged batch counts as one).
// When the Layout implements Counter it costs O(ranges before last) Counter
// calls (range arithmetic); otherwise it walks the unacknowledged entries
// with NextUnacked, skipping each acknowledged range in one step:
// O(backlog + ranges) Layout calls, never O(acknowledged entries).
func (c *Cursor) Backlog(last Position) int {
	if !c.md.Less(last) {
		return 0
	}
	if cnt, ok := c.layout.(Counter); ok {
		n := cnt.CountBetween(c.md, last)
		c.ranges.Each(func(iv interval) bool {
			if last.Less(iv.lo) {
				return false
			}
			hi := iv.hi
			if last.Less(hi) {
				hi = last
			}
			n -= cnt.CountBetween(justBefore(iv.lo), hi)
			return true
		})
		return n
	}
	n := 0
	q := c.md
	for {
		var ok bool
		q, ok = c.NextUnacked(q)
		if !ok || last.Less(q) {
			return n
		}
		n++
	}
}

// Dirty reports whether the state changed since it was last persisted.
func (c *Cursor) Dirty() bool { return c.dirty }
