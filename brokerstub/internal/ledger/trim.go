package ledger

import (
	"errors"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// Retention is how much consumed data a topic keeps, Pulsar's
// RetentionPolicies. A negative limit is no limit (Pulsar's -1); both limits
// 0 (the zero value, Pulsar's default) keep nothing once it is consumed.
type Retention struct {
	// Time keeps a consumed ledger until it is older than this.
	Time time.Duration
	// Size keeps consumed ledgers while removing one would leave the topic
	// holding less than this many bytes.
	Size int64
}

// Trimmable returns the ledgers, oldest first, that a broker deletes now,
// by the rules of Pulsar's ManagedLedgerImpl.internalTrimLedgers:
//
//   - Only consumed ledgers go. slowest is the mark-delete position of the
//     slowest durable cursor, and a ledger is consumed when it is before
//     slowest's ledger, or slowest is (at or past) its last entry. With no
//     durable cursor (durable false) every ledger is consumed.
//   - The ledger receiving appends never goes, unless it is full: Pulsar
//     closes a full ledger at once and opens the next one, which the
//     Ledger does lazily on the next Append.
//   - Oldest first, a consumed ledger goes when it is older than
//     r.Time (age: now minus Timestamp, its last entry's broker
//     timestamp, which is when Pulsar closes a full ledger), or when the
//     topic minus it and the older ones still holds at least r.Size bytes;
//     the first ledger that neither rule removes stops the walk.
func (l *Ledger) Trimmable(slowest Position, durable bool, r Retention, now time.Time) []SegmentInfo {
	var out []SegmentInfo
	total, removed := l.Size(), int64(0)
	nowMs := now.UnixMilli()
	for i := range l.segs {
		if !l.consumed(i, slowest, durable) {
			break
		}
		info := l.segs[i].info()
		removed += info.Size
		expired := r.Time >= 0 && nowMs-info.Timestamp > r.Time.Milliseconds()
		overQuota := r.Size >= 0 && total-removed >= r.Size
		if !expired && !overQuota {
			break
		}
		out = append(out, info)
	}
	return out
}

// consumed reports whether segment i is closed (or full) and wholly
// consumed by the cursors Trimmable describes.
func (l *Ledger) consumed(i int, slowest Position, durable bool) bool {
	s := &l.segs[i]
	if s.id == l.cur && !l.roll {
		return false // still written to
	}
	return !durable || s.id < slowest.Ledger || s.id == slowest.Ledger && slowest.Entry >= int64(len(s.entries))-1
}

// OldestConsumed reports whether the oldest ledger is closed and consumed
// (see Trimmable), in O(1): when it is not, Trimmable returns nothing
// whatever the retention.
func (l *Ledger) OldestConsumed(slowest Position, durable bool) bool {
	return len(l.segs) > 0 && l.consumed(0, slowest, durable)
}

// errNoTrimmer is returned when the store cannot remove entries.
var errNoTrimmer = errors.New("ledger: the store cannot remove entries")

// DeleteBefore removes every ledger whose id is below id: from the store
// first (store.Trimmer), then from memory. Positions in removed ledgers
// name no entry afterwards; Next and Prev step over them. If the store
// fails nothing is removed.
func (l *Ledger) DeleteBefore(id int64) error {
	k := 0
	for k < len(l.segs) && l.segs[k].id < id {
		k++
	}
	if k == 0 {
		return nil
	}
	tr, ok := l.st.(store.Trimmer)
	if !ok {
		return errNoTrimmer
	}
	if err := tr.DeleteLedgersBefore(l.topic, id); err != nil {
		return fmt.Errorf("ledger: topic %q: delete ledgers before %d: %w", l.topic, id, err)
	}
	for _, s := range l.segs[:k] {
		l.n -= len(s.entries)
	}
	l.segs = append([]segment(nil), l.segs[k:]...)
	l.slabs.dropBefore(id)
	if l.memo.pos.Ledger < id {
		l.memo.pos, l.memo.payload = Position{}, nil
	}
	return nil
}

// DropConsumed drops from memory the entry bytes at or before p, the
// mark-delete position of the slowest durable subscription: they are read
// back from the store if read again (a seek back, a reader, the admin
// API). It does nothing unless the Ledger has a Cache and a store that
// reads entries back (Options.Cache), because otherwise memory is the only
// place the bytes are in.
func (l *Ledger) DropConsumed(p Position) {
	if l.reader != nil {
		l.slabs.dropConsumed(p)
	}
}
