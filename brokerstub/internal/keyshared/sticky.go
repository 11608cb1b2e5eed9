package keyshared

import (
	"fmt"
	"slices"
	"sort"
)

// Sticky is Pulsar's HashRangeExclusiveStickyKeyConsumerSelector, used in
// STICKY mode: each consumer declares fixed hash ranges, which must not
// overlap each other or another consumer's; hashes no consumer declared go
// nowhere.
type Sticky struct {
	ranges []stickyRange // sorted by start, disjoint
}

type stickyRange struct {
	r     Range
	id    ConsumerID
	label string // the owner's Member.Label, for conflict messages
}

// NewSticky returns an empty sticky-ranges selector.
func NewSticky() *Sticky { return &Sticky{} }

// KeyHashRange returns [0, 65535].
func (s *Sticky) KeyHashRange() Range { return Range{Start: 0, End: RangeSize - 1} }

// Add claims m.Ranges for m. It fails with Pulsar's messages when m has no
// ranges, a range is reversed, two of m's ranges overlap, or a range
// overlaps another consumer's.
func (s *Sticky) Add(m *Member) error {
	if len(m.Ranges) == 0 {
		return &AssignError{Message: "Ranges for KeyShared policy must not be empty."}
	}
	sorted := slices.Clone(m.Ranges)
	slices.SortStableFunc(sorted, func(a, b Range) int { return int(a.Start) - int(b.Start) })
	for i, r := range sorted {
		if r.Start > r.End {
			return &AssignError{Message: fmt.Sprintf("Fixed hash range start > end for range: [%d,%d]", r.Start, r.End)}
		}
		if i+1 < len(sorted) && r.Overlaps(sorted[i+1]) {
			n := sorted[i+1]
			return &AssignError{Message: fmt.Sprintf("Consumer's own ranges conflict: [%d,%d] overlaps with [%d,%d]", r.Start, r.End, n.Start, n.End)}
		}
	}
	if slices.ContainsFunc(s.ranges, func(e stickyRange) bool { return e.id == m.ID }) {
		return nil
	}
	for _, r := range sorted {
		for _, e := range s.ranges {
			if e.r.Overlaps(r) {
				return &AssignError{Message: "Range conflict with consumer " + e.label}
			}
		}
	}
	for _, r := range sorted {
		s.ranges = append(s.ranges, stickyRange{r: r, id: m.ID, label: m.Label})
	}
	slices.SortFunc(s.ranges, func(a, b stickyRange) int { return int(a.r.Start) - int(b.r.Start) })
	return nil
}

// Remove frees id's ranges.
func (s *Sticky) Remove(id ConsumerID) {
	s.ranges = slices.DeleteFunc(s.ranges, func(e stickyRange) bool { return e.id == id })
}

// Select returns the consumer whose range holds hash % 65536.
func (s *Sticky) Select(hash int32) (ConsumerID, bool) {
	slot := hash % RangeSize
	j := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].r.Start > slot }) - 1
	if j < 0 || !s.ranges[j].r.Contains(slot) {
		return 0, false
	}
	return s.ranges[j].id, true
}

// Assignments returns the declared ranges in hash order.
func (s *Sticky) Assignments() []Assignment {
	out := make([]Assignment, len(s.ranges))
	for i, e := range s.ranges {
		out[i] = Assignment{Range: e.r, Consumer: e.id}
	}
	return out
}
