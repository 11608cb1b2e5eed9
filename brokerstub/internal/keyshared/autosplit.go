package keyshared

import (
	"fmt"
	"slices"
	"sort"
)

// AutoSplit is Pulsar's HashRangeAutoSplitStickyKeyConsumerSelector, used
// for AUTO_SPLIT consumers when consistent hashing is off: the first
// consumer owns the whole range; each new consumer takes the lower half of
// the largest range (the first one on ties); a leaving consumer's range
// goes to the consumer above it, or, for the topmost one, to the consumer
// below it.
type AutoSplit struct {
	ends []splitEnd // sorted by end; a consumer owns (previous end, end]
}

type splitEnd struct {
	end int32
	id  ConsumerID
}

// NewAutoSplit returns an empty auto-split selector.
func NewAutoSplit() *AutoSplit { return &AutoSplit{} }

// KeyHashRange returns [0, 65535].
func (a *AutoSplit) KeyHashRange() Range { return Range{Start: 0, End: RangeSize - 1} }

// Add splits the largest range for m; it fails when no range can be split.
func (a *AutoSplit) Add(m *Member) error {
	if slices.ContainsFunc(a.ends, func(e splitEnd) bool { return e.id == m.ID }) {
		return nil
	}
	if len(a.ends) == 0 {
		a.ends = append(a.ends, splitEnd{end: RangeSize, id: m.ID})
		return nil
	}
	biggest, slots := 0, int32(0)
	for i, e := range a.ends {
		if size := e.end - a.lower(i); size > slots {
			biggest, slots = i, size
		}
	}
	lower, end := a.lower(biggest), a.ends[biggest].end
	if end-lower <= 1 {
		return &AssignError{Message: fmt.Sprintf("No more range can assigned to new consumer, assigned consumers %d", len(a.ends))}
	}
	split := end - ((end - lower) >> 1)
	a.ends = slices.Insert(a.ends, biggest, splitEnd{end: split, id: m.ID})
	return nil
}

func (a *AutoSplit) lower(i int) int32 {
	if i == 0 {
		return 0
	}
	return a.ends[i-1].end
}

// Remove gives id's range to the consumer above it (below it for the
// topmost range).
func (a *AutoSplit) Remove(id ConsumerID) {
	i := slices.IndexFunc(a.ends, func(e splitEnd) bool { return e.id == id })
	if i < 0 {
		return
	}
	if a.ends[i].end == RangeSize && len(a.ends) > 1 {
		a.ends[i].id = a.ends[i-1].id
		a.ends = slices.Delete(a.ends, i-1, i)
		return
	}
	a.ends = slices.Delete(a.ends, i, i+1)
}

// Select returns the consumer of the first range end at or above hash.
func (a *AutoSplit) Select(hash int32) (ConsumerID, bool) {
	j := sort.Search(len(a.ends), func(i int) bool { return a.ends[i].end >= hash })
	if j == len(a.ends) {
		return 0, false
	}
	return a.ends[j].id, true
}

// Assignments returns [0, end1], [end1+1, end2], ... as Pulsar reports them
// (the last range ends at 65536).
func (a *AutoSplit) Assignments() []Assignment {
	out := make([]Assignment, 0, len(a.ends))
	start := int32(0)
	for _, e := range a.ends {
		out = append(out, Assignment{Range: Range{Start: start, End: e.end}, Consumer: e.id})
		start = e.end + 1
	}
	return out
}
