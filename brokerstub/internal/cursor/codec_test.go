package cursor

import (
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// enc builds state bytes by hand: a header then varint/word items.
type enc []byte

func hdr(flags byte) enc         { return enc{stateMagic, stateVersion, flags} }
func (e enc) sv(v int64) enc     { return binary.AppendVarint(e, v) }
func (e enc) uv(v uint64) enc    { return binary.AppendUvarint(e, v) }
func (e enc) word(w uint64) enc  { return binary.LittleEndian.AppendUint64(e, w) }
func (e enc) raw(b ...byte) enc  { return append(e, b...) }
func (e enc) md(l, en int64) enc { return e.sv(l).sv(en) }
func (e enc) rel(dl uint64, entry int64) enc {
	if dl == 0 {
		return e.uv(dl).uv(uint64(entry))
	}
	return e.uv(dl).sv(entry)
}

func TestDecodeErrors(t *testing.T) {
	valid := hdr(0).md(3, 0).uv(1).rel(0, 2).rel(0, 1).uv(1).rel(2, 0).uv(1).word(0b10)
	s, err := DecodeState(valid)
	require.NoError(t, err)
	assert.Equal(t, State{
		MarkDelete: pos(3, 0),
		Ranges:     [][2]Position{{pos(3, 2), pos(3, 3)}},
		Bitmaps:    map[Position][]int64{pos(5, 0): {0b10}},
	}, s)

	cases := map[string][]byte{
		"empty":                 nil,
		"short header":          {stateMagic, stateVersion},
		"bad magic":             hdr(0).md(0, 0).uv(0).uv(0).raw()[:0:0],
		"version 2":             {stateMagic, 2, 0, 0, 0, 0, 0},
		"unknown flags":         hdr(2).md(0, 0).uv(0).uv(0),
		"truncated md":          hdr(0).raw(0x80),
		"no counts":             hdr(0).md(0, 0),
		"huge range count":      hdr(0).md(0, 0).uv(1<<60).raw(0, 0, 0, 0),
		"range count > bytes":   hdr(0).md(0, 0).uv(2).rel(0, 1).rel(0, 0).uv(0),
		"range at mark-delete":  hdr(0).md(3, 1).uv(1).rel(0, 0).rel(0, 0).uv(0),
		"range overlaps prev":   hdr(0).md(3, 1).uv(2).rel(0, 1).rel(0, 2).rel(0, 0).rel(0, 0).uv(0),
		"ledger overflow":       hdr(0).md(math.MaxInt64, 0).uv(1).rel(1, 0).rel(0, 0).uv(0),
		"entry overflow":        hdr(0).md(3, math.MaxInt64-1).uv(1).rel(0, 1).uv(0).uv(math.MaxUint64 >> 1).uv(0),
		"huge bitmap count":     hdr(0).md(0, 0).uv(0).uv(1 << 62).raw(make([]byte, 20)...),
		"huge word count":       hdr(0).md(0, 0).uv(0).uv(1).rel(0, 1).uv(1 << 61).word(1),
		"zero word count":       hdr(0).md(0, 0).uv(0).uv(1).rel(0, 1).uv(0).word(1),
		"trailing zero word":    hdr(0).md(0, 0).uv(0).uv(1).rel(0, 1).uv(2).word(1).word(0),
		"bitmap at mark-delete": hdr(0).md(0, 1).uv(0).uv(1).rel(0, 0).uv(1).word(1),
		"bitmap inside range":   hdr(0).md(0, 0).uv(1).rel(0, 1).rel(0, 5).uv(1).rel(0, 3).uv(1).word(1),
		"bitmaps not ascending": hdr(0).md(0, 0).uv(0).uv(2).rel(0, 1).uv(1).word(1).rel(0, 0).uv(1).word(1),
		"truncated word":        hdr(0).md(0, 0).uv(0).uv(1).rel(0, 1).uv(1).raw(1, 2, 3, 4, 5, 6, 7, 8)[:17],
		"trailing bytes":        append(append([]byte(nil), valid...), 0),
		"overlong varint":       hdr(0).raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
	}
	cases["bad magic"] = append([]byte{0x00}, valid[1:]...)
	l := newLayout([2]int64{3, 4}, [2]int64{5, 1})
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeState(b)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrCorruptState), "%v", err)
			var se *StateError
			require.True(t, errors.As(err, &se))
			assert.LessOrEqual(t, se.Offset, len(b))
			c, err := Restore(b, l, Options{})
			assert.Nil(t, c)
			assert.ErrorIs(t, err, ErrCorruptState)
		})
	}
}

func TestDecodeHugeClaimsDoNotAllocate(t *testing.T) {
	inputs := [][]byte{
		hdr(0).md(0, 0).uv(1 << 60).raw(make([]byte, 64)...),
		hdr(0).md(0, 0).uv(0).uv(1 << 62).raw(make([]byte, 64)...),
		hdr(0).md(0, 0).uv(0).uv(1).rel(0, 1).uv(1 << 61).raw(make([]byte, 64)...),
	}
	for _, b := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := DecodeState(b)
		runtime.ReadMemStats(&after)
		require.ErrorIs(t, err, ErrCorruptState)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10))
	}
}

func TestRoundTripExtremes(t *testing.T) {
	l := &fakeLayout{pos: []Position{
		pos(-5, 3), pos(0, math.MaxInt64-2), pos(0, math.MaxInt64), pos(7, 0), pos(7, 1),
		pos(math.MaxInt64, 0), pos(math.MaxInt64, math.MaxInt64),
	}}
	c := New(pos(math.MinInt64, math.MinInt64), l, Options{})
	c.AckIndividual(pos(0, math.MaxInt64-2), nil, 1)
	c.AckIndividual(pos(7, 1), []int64{math.MinInt64, -1, 1}, 129)
	c.AckIndividual(pos(math.MaxInt64, math.MaxInt64), nil, 1)
	c.AckIndividual(pos(math.MaxInt64, 0), []int64{-2}, 64)
	b, ok := c.Flush()
	require.True(t, ok)
	r, err := Restore(b, l, Options{})
	require.NoError(t, err)
	assert.Equal(t, c.Current(), r.Current())
	assert.Equal(t, c.Current(), r.Persisted())
	assert.False(t, r.Dirty())
}

func FuzzRestore(f *testing.F) {
	l, p := twentyAcrossLedgers()
	f.Add([]byte{})
	f.Add([]byte{stateMagic, stateVersion, 0})
	for seed := 0; seed < 4; seed++ {
		c := New(pos(3, -1), l, Options{MaxRanges: 2, MaxBatchIndexes: 1})
		for i := seed; i < len(p); i += 2 + seed {
			c.AckIndividual(p[i], nil, 1)
			if i+1 < len(p) {
				c.AckIndividual(p[i+1], unackedSet(70, i%70), 70)
			}
		}
		b, _ := c.Flush()
		f.Add(b)
	}
	f.Add([]byte(hdr(0).md(3, 0).uv(1).rel(0, 2).rel(0, 1).uv(1).rel(2, 0).uv(1).word(0b10)))
	opts := Options{MaxRanges: math.MaxInt32, MaxBatchIndexes: math.MaxInt32}

	f.Fuzz(func(t *testing.T, data []byte) {
		s, derr := DecodeState(data)
		c, err := Restore(data, l, opts)
		if err != nil {
			require.ErrorIs(t, err, ErrCorruptState)
			require.Error(t, derr)
			return
		}
		require.NoError(t, derr)
		// Valid states round-trip: the decoded snapshot re-encodes to bytes
		// that decode to the same state, and the (normalized) cursor
		// restores to itself.
		if !c.Dirty() {
			require.Equal(t, s, c.Current())
		}
		c.dirty = true
		b, ok := c.Flush()
		require.True(t, ok)
		require.Equal(t, c.Current(), c.Persisted())
		r, err := Restore(b, l, opts)
		require.NoError(t, err)
		require.Equal(t, c.Current(), r.Current())
		require.False(t, r.Dirty(), "a normalized state restores clean")
		// And the cursor stays usable.
		for _, q := range p {
			r.AckIndividual(q, []int64{1}, 2)
		}
	})
}
