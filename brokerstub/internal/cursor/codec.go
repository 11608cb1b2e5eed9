package cursor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Persisted state format, version 1 (all integers are encoding/binary
// varints: "uv" unsigned, "sv" zig-zag signed):
//
//	byte   magic 0xC5
//	byte   version 1
//	byte   flags: bit 0 = truncated (MaxRanges or MaxBatchIndexes cut the
//	       state); other bits must be zero
//	sv sv  mark-delete ledger, entry
//	uv     number of ranges, then per range (closed interval [lo, hi],
//	       ascending, disjoint, all > mark-delete):
//	         pos lo relative to the previous hi (the mark-delete for the
//	         first), pos hi relative to lo
//	uv     number of bitmaps, then per bitmap (ascending, > mark-delete,
//	       not inside a range): pos relative to the previous bitmap's
//	       position (the mark-delete for the first), uv word count (>= 1),
//	       the words as 8-byte little-endian, the last one non-zero
//
// A relative position "pos" is: uv ledger delta; then, when the delta is
// zero, uv entry delta, else sv absolute entry. Nothing is allocated by a
// claimed count beyond what the remaining bytes can hold.
const (
	stateMagic    = 0xC5
	stateVersion  = 1
	flagTruncated = 1

	minRangeBytes  = 4     // four one-byte varints
	minBitmapBytes = 3 + 8 // two varints of position, one of count, one word
	headerBytes    = 3
)

// ErrCorruptState is what every error of Restore and DecodeState wraps
// (errors.Is): the bytes are not a valid persisted cursor state.
var ErrCorruptState = errors.New("cursor: corrupt persisted state")

// StateError tells where and why persisted state bytes are invalid. It
// wraps ErrCorruptState.
type StateError struct {
	Offset int    // byte offset where decoding failed
	Reason string // what was wrong
}

// Error implements error.
func (e *StateError) Error() string {
	return fmt.Sprintf("cursor: corrupt persisted state at byte %d: %s", e.Offset, e.Reason)
}

// Unwrap returns ErrCorruptState.
func (e *StateError) Unwrap() error { return ErrCorruptState }

// decoded is a validated persisted state.
type decoded struct {
	md        Position
	truncated bool
	ranges    []interval
	bitmaps   []bitmapEntry
}

// appendRelPos appends p relative to prev; p >= prev.
func appendRelPos(b []byte, prev, p Position) []byte {
	dl := uint64(p.Ledger) - uint64(prev.Ledger)
	b = binary.AppendUvarint(b, dl)
	if dl == 0 {
		return binary.AppendUvarint(b, uint64(p.Entry)-uint64(prev.Entry))
	}
	return binary.AppendVarint(b, p.Entry)
}

// encodeState serializes md, the ranges (at most maxRanges, the lowest) and
// the bitmaps (at most maxBitmaps entries, the lowest).
func encodeState(md Position, ranges *rangeSet, bitmaps []bitmapEntry, maxRanges, maxBitmaps int) (b []byte, truncated bool, nRanges, nBitmaps int) {
	nRanges = min(ranges.Len(), maxRanges)
	nBitmaps = min(len(bitmaps), maxBitmaps)
	truncated = nRanges < ranges.Len() || nBitmaps < len(bitmaps)
	size := headerBytes + 2*binary.MaxVarintLen64 + binary.MaxVarintLen64*2 + nRanges*8
	for _, e := range bitmaps[:nBitmaps] {
		size += 6 + 8*len(e.bits)
	}
	b = make([]byte, 0, size)
	flags := byte(0)
	if truncated {
		flags |= flagTruncated
	}
	b = append(b, stateMagic, stateVersion, flags)
	b = binary.AppendVarint(b, md.Ledger)
	b = binary.AppendVarint(b, md.Entry)
	b = binary.AppendUvarint(b, uint64(nRanges))
	prev, k := md, 0
	ranges.Each(func(iv interval) bool {
		if k == nRanges {
			return false
		}
		b = appendRelPos(b, prev, iv.lo)
		b = appendRelPos(b, iv.lo, iv.hi)
		prev = iv.hi
		k++
		return true
	})
	b = binary.AppendUvarint(b, uint64(nBitmaps))
	prev = md
	for _, e := range bitmaps[:nBitmaps] {
		b = appendRelPos(b, prev, e.pos)
		b = binary.AppendUvarint(b, uint64(len(e.bits)))
		for _, w := range e.bits {
			b = binary.LittleEndian.AppendUint64(b, uint64(w))
		}
		prev = e.pos
	}
	return b, truncated, nRanges, nBitmaps
}

// reader decodes varints with bounds checks.
type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(reason string) error { return &StateError{Offset: r.off, Reason: reason} }

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		return 0, r.fail("bad varint: " + what)
	}
	r.off += n
	return v, nil
}

func (r *reader) varint(what string) (int64, error) {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		return 0, r.fail("bad varint: " + what)
	}
	r.off += n
	return v, nil
}

// addDelta returns base+d, failing when it overflows int64.
func (r *reader) addDelta(base int64, d uint64, what string) (int64, error) {
	if d > uint64(math.MaxInt64)-uint64(base) {
		return 0, r.fail(what + " overflows")
	}
	return int64(uint64(base) + d), nil
}

// relPos reads a position relative to prev (the result is >= prev).
func (r *reader) relPos(prev Position, what string) (Position, error) {
	dl, err := r.uvarint(what + " ledger delta")
	if err != nil {
		return Position{}, err
	}
	var p Position
	if p.Ledger, err = r.addDelta(prev.Ledger, dl, what+" ledger"); err != nil {
		return Position{}, err
	}
	if dl == 0 {
		de, err := r.uvarint(what + " entry delta")
		if err != nil {
			return Position{}, err
		}
		p.Entry, err = r.addDelta(prev.Entry, de, what+" entry")
		return p, err
	}
	p.Entry, err = r.varint(what + " entry")
	return p, err
}

// decodeState validates and decodes persisted state bytes.
func decodeState(b []byte) (decoded, error) {
	r := &reader{b: b}
	var d decoded
	if len(b) < headerBytes {
		return d, r.fail("short header")
	}
	if b[0] != stateMagic {
		return d, r.fail("bad magic")
	}
	if b[1] != stateVersion {
		r.off = 1
		return d, r.fail(fmt.Sprintf("unsupported version %d", b[1]))
	}
	if b[2]&^flagTruncated != 0 {
		r.off = 2
		return d, r.fail("unknown flags")
	}
	d.truncated = b[2]&flagTruncated != 0
	r.off = headerBytes
	var err error
	if d.md.Ledger, err = r.varint("mark-delete ledger"); err != nil {
		return d, err
	}
	if d.md.Entry, err = r.varint("mark-delete entry"); err != nil {
		return d, err
	}

	n, err := r.uvarint("range count")
	if err != nil {
		return d, err
	}
	if n > uint64(r.remaining()/minRangeBytes) {
		return d, r.fail("range count exceeds the bytes")
	}
	if n > 0 {
		d.ranges = make([]interval, 0, n)
	}
	prev := d.md
	for k := uint64(0); k < n; k++ {
		lo, err := r.relPos(prev, "range start")
		if err != nil {
			return d, err
		}
		if lo == prev {
			return d, r.fail("range not after the mark-delete or previous range")
		}
		hi, err := r.relPos(lo, "range end")
		if err != nil {
			return d, err
		}
		d.ranges = append(d.ranges, interval{lo: lo, hi: hi})
		prev = hi
	}

	if n, err = r.uvarint("bitmap count"); err != nil {
		return d, err
	}
	if n > uint64(r.remaining()/minBitmapBytes) {
		return d, r.fail("bitmap count exceeds the bytes")
	}
	if n > 0 {
		d.bitmaps = make([]bitmapEntry, 0, n)
	}
	prev = d.md
	ri := 0
	for k := uint64(0); k < n; k++ {
		p, err := r.relPos(prev, "bitmap position")
		if err != nil {
			return d, err
		}
		if p == prev {
			return d, r.fail("bitmap not after the mark-delete or previous bitmap")
		}
		for ri < len(d.ranges) && d.ranges[ri].hi.Less(p) {
			ri++
		}
		if ri < len(d.ranges) && !p.Less(d.ranges[ri].lo) {
			return d, r.fail("bitmap of an entry inside a range")
		}
		nw, err := r.uvarint("bitmap word count")
		if err != nil {
			return d, err
		}
		if nw == 0 || nw > uint64(r.remaining()/8) {
			return d, r.fail("bitmap word count out of bounds")
		}
		w := make([]int64, nw)
		for i := range w {
			w[i] = int64(binary.LittleEndian.Uint64(b[r.off:]))
			r.off += 8
		}
		if w[nw-1] == 0 {
			return d, r.fail("bitmap with a trailing zero word")
		}
		d.bitmaps = append(d.bitmaps, bitmapEntry{pos: p, bits: w})
		prev = p
	}
	if r.remaining() != 0 {
		return d, r.fail("trailing bytes")
	}
	return d, nil
}
