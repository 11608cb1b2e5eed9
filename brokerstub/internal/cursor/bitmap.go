package cursor

import (
	"math/bits"
	"slices"
	"sort"
)

// This file holds the batch-index bitmaps: Pulsar's ack_set words, where bit
// i (word i/64, bit i%64) SET means batch index i is NOT yet acknowledged.
//
// A stored bitmap is canonical: masked to the entry's batch size when that is
// known, trailing zero words trimmed, and never all zero (an entry whose
// bitmap becomes all zero is fully acknowledged and leaves the bitmaps).

// batchWords returns the number of 64-bit words that hold batchSize bits.
func batchWords(batchSize int) int {
	if batchSize <= 0 {
		return 0
	}
	return (batchSize-1)/64 + 1
}

// trimWords drops trailing zero words; nil when every word is zero.
func trimWords(w []int64) []int64 {
	n := len(w)
	for n > 0 && w[n-1] == 0 {
		n--
	}
	if n == 0 {
		return nil
	}
	return w[:n]
}

// masked returns w limited to batchSize bits, without allocating unless
// the last kept word has bits beyond batchSize (then it is a trimmed copy).
func masked(w []int64, batchSize int) []int64 {
	nw := batchWords(batchSize)
	if len(w) > nw {
		w = w[:nw]
	}
	if rem := batchSize % 64; rem != 0 && len(w) == nw {
		mask := int64(uint64(1)<<uint(rem) - 1)
		if w[nw-1]&^mask != 0 {
			w = slices.Clone(w)
			w[nw-1] &= mask
		}
	}
	return trimWords(w)
}

// isFull reports whether w has every bit of [0, batchSize) set, i.e. no
// index of the batch is acknowledged.
func isFull(w []int64, batchSize int) bool {
	nw := batchWords(batchSize)
	if len(w) < nw {
		return false
	}
	for k := 0; k < nw; k++ {
		want := ^uint64(0)
		if k == nw-1 && batchSize%64 != 0 {
			want = uint64(1)<<uint(batchSize%64) - 1
		}
		if uint64(w[k])&want != want {
			return false
		}
	}
	return true
}

// andAckSet applies an incoming ack_set (the indexes still unacknowledged
// after the ack, as on the wire) to the stored bitmap cur; cur == nil means
// "nothing acknowledged yet". Words missing from ackSet count as zero (all
// acknowledged), as Java's BitSet.and does; bits at or beyond batchSize are
// ignored. It never allocates more than min(len(ackSet), words(batchSize))
// words. It returns the canonical result (nil = fully acknowledged) and
// whether it differs from cur within the batch.
func andAckSet(cur, ackSet []int64, batchSize int) (res []int64, changed bool) {
	in := masked(ackSet, batchSize)
	if cur == nil {
		if isFull(in, batchSize) {
			return nil, false
		}
		return slices.Clone(in), true
	}
	old := masked(cur, batchSize)
	n := min(len(old), len(in))
	out := make([]int64, n)
	for k := 0; k < n; k++ {
		out[k] = old[k] & in[k]
	}
	out = trimWords(out)
	if slices.Equal(out, old) {
		return cur, false
	}
	return out, true
}

// popcount returns the number of set bits of w within [0, batchSize).
func popcount(w []int64, batchSize int) int {
	n := 0
	for _, x := range masked(w, batchSize) {
		n += bits.OnesCount64(uint64(x))
	}
	return n
}

// bitmapEntry is the partial-ack bitmap of one entry.
type bitmapEntry struct {
	pos  Position
	bits []int64
}

// bitmapSet holds the partial-ack bitmaps sorted by position. Few entries are
// partially acknowledged at a time (they sit between the mark-delete position
// and the dispatch position), so a sorted slice is the right structure:
// lookup O(log k), insert/delete O(k), drop-through-mark-delete O(dropped).
type bitmapSet struct{ entries []bitmapEntry }

// Len returns the number of entries with a bitmap.
func (s *bitmapSet) Len() int { return len(s.entries) }

func (s *bitmapSet) index(p Position) (int, bool) {
	i := sort.Search(len(s.entries), func(k int) bool { return !s.entries[k].pos.Less(p) })
	return i, i < len(s.entries) && s.entries[i].pos == p
}

// Get returns p's stored bitmap (not a copy), nil when there is none.
func (s *bitmapSet) Get(p Position) []int64 {
	if i, ok := s.index(p); ok {
		return s.entries[i].bits
	}
	return nil
}

// Set stores w (which must be canonical and owned by the set) as p's bitmap.
func (s *bitmapSet) Set(p Position, w []int64) {
	i, ok := s.index(p)
	if ok {
		s.entries[i].bits = w
		return
	}
	s.entries = slices.Insert(s.entries, i, bitmapEntry{pos: p, bits: w})
}

// Delete removes p's bitmap and reports whether there was one.
func (s *bitmapSet) Delete(p Position) bool {
	i, ok := s.index(p)
	if ok {
		s.entries = slices.Delete(s.entries, i, i+1)
	}
	return ok
}

// DropThrough removes the bitmaps of positions <= md and reports whether
// there were any.
func (s *bitmapSet) DropThrough(md Position) bool {
	i := sort.Search(len(s.entries), func(k int) bool { return md.Less(s.entries[k].pos) })
	if i == 0 {
		return false
	}
	s.entries = slices.Delete(s.entries, 0, i)
	return true
}

// Clear removes every bitmap.
func (s *bitmapSet) Clear() { s.entries = nil }
