package cursor

import "slices"

// State is a plain snapshot of a cursor's acknowledgment state, for tests
// and inspection. Ranges are closed intervals [lo, hi] of fully acknowledged
// entries in ascending order; Bitmaps maps each partially acknowledged
// entry to its ack_set words (a set bit = batch index not yet acknowledged).
// Empty Ranges and Bitmaps are nil.
type State struct {
	MarkDelete Position
	Ranges     [][2]Position
	Bitmaps    map[Position][]int64
}

// Current returns a snapshot of the cursor's present state.
func (c *Cursor) Current() State {
	s := State{MarkDelete: c.md}
	c.ranges.Each(func(iv interval) bool {
		s.Ranges = append(s.Ranges, [2]Position{iv.lo, iv.hi})
		return true
	})
	for _, e := range c.bitmaps.entries {
		if s.Bitmaps == nil {
			s.Bitmaps = make(map[Position][]int64, c.bitmaps.Len())
		}
		s.Bitmaps[e.pos] = slices.Clone(e.bits)
	}
	return s
}

// DecodeState decodes persisted state bytes into a snapshot without
// building a cursor (for inspecting a store). Errors are as Restore's.
func DecodeState(b []byte) (State, error) {
	d, err := decodeState(b)
	if err != nil {
		return State{}, err
	}
	s := State{MarkDelete: d.md}
	for _, iv := range d.ranges {
		s.Ranges = append(s.Ranges, [2]Position{iv.lo, iv.hi})
	}
	for _, e := range d.bitmaps {
		if s.Bitmaps == nil {
			s.Bitmaps = make(map[Position][]int64, len(d.bitmaps))
		}
		s.Bitmaps[e.pos] = e.bits
	}
	return s, nil
}
