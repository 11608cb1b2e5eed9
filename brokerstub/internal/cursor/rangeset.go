package cursor

import "sort"

// interval is a closed interval [lo, hi] of existing positions, all of them
// fully acknowledged. Pulsar stores the same set as the open-closed range
// (Prev(lo), hi]; closed intervals need no position that might not exist.
type interval struct{ lo, hi Position }

// blockMax is the most intervals one block of a rangeSet holds before it is
// split in two.
const blockMax = 128

// rangeSet is the set of individually deleted entries: disjoint, sorted
// closed intervals of existing positions, kept non-adjacent by its users
// (two intervals a, b never satisfy Next(a.hi) == b.lo: they are merged).
//
// It is a sorted slice cut into blocks of at most blockMax intervals (a
// two-level B-tree of height one), so that inserting into a set of n
// intervals costs O(log n + blockMax + n/blockMax) instead of the O(n) move
// of one flat slice. Memory is O(intervals), never O(entries).
type rangeSet struct {
	blocks [][]interval // each non-empty; concatenated they are sorted
	n      int          // number of intervals
}

// Len returns the number of intervals.
func (s *rangeSet) Len() int { return s.n }

// search returns the coordinates of the first interval for which f is true;
// f must be false then true along the sorted intervals. b == len(blocks)
// when there is none.
func (s *rangeSet) search(f func(interval) bool) (b, i int) {
	b = sort.Search(len(s.blocks), func(k int) bool {
		blk := s.blocks[k]
		return f(blk[len(blk)-1])
	})
	if b == len(s.blocks) {
		return b, 0
	}
	blk := s.blocks[b]
	return b, sort.Search(len(blk), func(k int) bool { return f(blk[k]) })
}

// locate returns the coordinates of the first interval whose hi >= p.
func (s *rangeSet) locate(p Position) (b, i int) {
	return s.search(func(iv interval) bool { return !iv.hi.Less(p) })
}

// find returns the interval that contains p.
func (s *rangeSet) find(p Position) (interval, bool) {
	b, i := s.locate(p)
	if b == len(s.blocks) {
		return interval{}, false
	}
	iv := s.blocks[b][i]
	return iv, !p.Less(iv.lo)
}

// Contains reports whether p is in one of the intervals.
func (s *rangeSet) Contains(p Position) bool {
	_, ok := s.find(p)
	return ok
}

// First returns the lowest interval.
func (s *rangeSet) First() (interval, bool) {
	if s.n == 0 {
		return interval{}, false
	}
	return s.blocks[0][0], true
}

// Add inserts the existing position p, merging it with its neighbours when
// the layout says they are adjacent (also across a ledger boundary). It
// reports false when p was already in the set.
func (s *rangeSet) Add(l Layout, p Position) bool {
	b, i := s.locate(p)
	var succ *interval
	if b < len(s.blocks) {
		succ = &s.blocks[b][i]
		if !p.Less(succ.lo) {
			return false
		}
	}
	var pred *interval
	switch {
	case i > 0:
		pred = &s.blocks[b][i-1]
	case b > 0:
		blk := s.blocks[b-1]
		pred = &blk[len(blk)-1]
	}
	left := pred != nil && adjacent(l, pred.hi, p)
	right := succ != nil && adjacent(l, p, succ.lo)
	switch {
	case left && right:
		pred.hi = succ.hi
		s.removeAt(b, i)
	case left:
		pred.hi = p
	case right:
		succ.lo = p
	default:
		s.insertAt(b, i, interval{lo: p, hi: p})
	}
	return true
}

// insertAt inserts iv before the interval at (b, i); b == len(blocks) means
// at the end.
func (s *rangeSet) insertAt(b, i int, iv interval) {
	s.n++
	if len(s.blocks) == 0 {
		s.blocks = append(s.blocks, []interval{iv})
		return
	}
	if b == len(s.blocks) {
		b = len(s.blocks) - 1
		i = len(s.blocks[b])
	}
	blk := append(s.blocks[b], interval{})
	copy(blk[i+1:], blk[i:])
	blk[i] = iv
	s.blocks[b] = blk
	if len(blk) > blockMax {
		half := len(blk) / 2
		right := make([]interval, len(blk)-half, blockMax)
		copy(right, blk[half:])
		s.blocks[b] = blk[:half:half]
		s.blocks = append(s.blocks, nil)
		copy(s.blocks[b+2:], s.blocks[b+1:])
		s.blocks[b+1] = right
	}
}

// removeAt deletes the interval at (b, i).
func (s *rangeSet) removeAt(b, i int) {
	s.n--
	blk := s.blocks[b]
	copy(blk[i:], blk[i+1:])
	blk = blk[:len(blk)-1]
	if len(blk) > 0 {
		s.blocks[b] = blk
		return
	}
	copy(s.blocks[b:], s.blocks[b+1:])
	s.blocks[len(s.blocks)-1] = nil
	s.blocks = s.blocks[:len(s.blocks)-1]
}

// RemoveFirst deletes the lowest interval; the set must not be empty.
func (s *rangeSet) RemoveFirst() { s.removeAt(0, 0) }

// DropThrough removes every position <= md: whole intervals that end at or
// before md go, and an interval that straddles md now starts at Next(md).
// It reports whether anything was removed.
func (s *rangeSet) DropThrough(l Layout, md Position) bool {
	b, i := s.search(func(iv interval) bool { return md.Less(iv.hi) })
	changed := b > 0 || i > 0
	if changed {
		dropped := 0
		for k := 0; k < b; k++ {
			dropped += len(s.blocks[k])
		}
		dropped += i
		s.n -= dropped
		if b == len(s.blocks) {
			s.blocks = nil
			return true
		}
		s.blocks[b] = append([]interval(nil), s.blocks[b][i:]...)
		s.blocks = append(s.blocks[:0], s.blocks[b:]...)
	}
	if s.n == 0 {
		return changed
	}
	if first := &s.blocks[0][0]; !md.Less(first.lo) {
		// md lies inside the first interval: it starts after md now. The
		// interval's hi exists and is > md, so Next(md) exists and is <= hi.
		if nx, ok := l.Next(md); ok && !first.hi.Less(nx) {
			first.lo = nx
		} else {
			s.RemoveFirst()
		}
		changed = true
	}
	return changed
}

// Clear removes every interval.
func (s *rangeSet) Clear() { *s = rangeSet{} }

// Each calls f for the intervals in ascending order until f returns false.
func (s *rangeSet) Each(f func(interval) bool) {
	for _, blk := range s.blocks {
		for _, iv := range blk {
			if !f(iv) {
				return
			}
		}
	}
}

// appendSorted adds iv after every interval in the set; the caller
// guarantees the order (used when restoring a persisted state).
func (s *rangeSet) appendSorted(iv interval) {
	if k := len(s.blocks); k > 0 && len(s.blocks[k-1]) < blockMax/2 {
		s.blocks[k-1] = append(s.blocks[k-1], iv)
	} else {
		blk := make([]interval, 1, blockMax/2)
		blk[0] = iv
		s.blocks = append(s.blocks, blk)
	}
	s.n++
}
