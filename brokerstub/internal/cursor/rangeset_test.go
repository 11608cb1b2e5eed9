package cursor

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func intervals(s *rangeSet) [][2]Position {
	var out [][2]Position
	s.Each(func(iv interval) bool {
		out = append(out, [2]Position{iv.lo, iv.hi})
		return true
	})
	return out
}

// checkRangeSet verifies the structure: blocks non-empty and bounded, n
// consistent, intervals sorted, disjoint and non-adjacent in the layout.
func checkRangeSet(t *testing.T, s *rangeSet, l Layout) {
	t.Helper()
	n := 0
	for _, blk := range s.blocks {
		require.NotEmpty(t, blk)
		require.LessOrEqual(t, len(blk), blockMax)
		n += len(blk)
	}
	require.Equal(t, s.n, n)
	var prev *interval
	s.Each(func(iv interval) bool {
		if iv.hi.Less(iv.lo) {
			t.Fatalf("interval %v", iv)
		}
		if prev != nil {
			if !prev.hi.Less(iv.lo) {
				t.Fatalf("not sorted or not disjoint: %v %v", *prev, iv)
			}
			if adjacent(l, prev.hi, iv.lo) {
				t.Fatalf("not merged: %v %v", *prev, iv)
			}
		}
		p := iv
		prev = &p
		return true
	})
}

func TestRangeSetMergeAcrossLedgerBoundary(t *testing.T) {
	l := newLayout([2]int64{3, 3}, [2]int64{5, 3}) // 3:0..3:2, 5:0..5:2
	var s rangeSet
	require.True(t, s.Add(l, pos(3, 2)))
	require.True(t, s.Add(l, pos(5, 0)))
	assert.Equal(t, [][2]Position{{pos(3, 2), pos(5, 0)}}, intervals(&s))
	require.True(t, s.Add(l, pos(3, 0)))
	assert.Equal(t, [][2]Position{{pos(3, 0), pos(3, 0)}, {pos(3, 2), pos(5, 0)}}, intervals(&s))
	assert.False(t, s.Add(l, pos(5, 0)), "already present")
	require.True(t, s.Add(l, pos(3, 1)))
	assert.Equal(t, [][2]Position{{pos(3, 0), pos(5, 0)}}, intervals(&s))
	require.True(t, s.Add(l, pos(5, 2)))
	require.True(t, s.Add(l, pos(5, 1)))
	assert.Equal(t, [][2]Position{{pos(3, 0), pos(5, 2)}}, intervals(&s))
	assert.True(t, s.Contains(pos(5, 1)))
}

func TestRangeSetMergeWhenNextLedgerAppearsLater(t *testing.T) {
	l := newLayout([2]int64{3, 3})
	c := New(pos(3, -1), l, Options{})
	require.True(t, c.AckIndividual(pos(3, 2), nil, 1))
	l.appendLedger(7, 2) // the ledger rolls over: 3:2 -> 7:0
	require.True(t, c.AckIndividual(pos(7, 0), nil, 1))
	assert.Equal(t, [][2]Position{{pos(3, 2), pos(7, 0)}}, c.Current().Ranges)
	require.True(t, c.AckIndividual(pos(3, 0), nil, 1))
	require.True(t, c.AckIndividual(pos(3, 1), nil, 1))
	assert.Equal(t, pos(7, 0), c.MarkDelete())
	assert.Nil(t, c.Current().Ranges)
}

func TestRangeSetRandomAgainstModel(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	l := &fakeLayout{}
	for led := int64(1); len(l.pos) < 5000; led += 1 + int64(rnd.Intn(3)) {
		l.appendLedger(led, 1+int64(rnd.Intn(40)))
	}
	var s rangeSet
	in := map[Position]bool{}
	for k, i := range rnd.Perm(len(l.pos)) {
		p := l.pos[i]
		if !s.Add(l, p) || s.Add(l, p) {
			t.Fatalf("Add(%v) twice", p)
		}
		in[p] = true
		if k%500 == 0 {
			checkRangeSet(t, &s, l)
			for _, q := range l.pos {
				if in[q] != s.Contains(q) {
					t.Fatalf("Contains(%v) = %v", q, !in[q])
				}
			}
		}
	}
	checkRangeSet(t, &s, l)
	assert.Equal(t, 1, s.Len())
}

func TestRangeSetDropThrough(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	l := &fakeLayout{}
	for led := int64(1); len(l.pos) < 3000; led += 2 {
		l.appendLedger(led, 10)
	}
	for round := 0; round < 20; round++ {
		var s rangeSet
		in := map[Position]bool{}
		for _, i := range rnd.Perm(len(l.pos))[:len(l.pos)/2] {
			s.Add(l, l.pos[i])
			in[l.pos[i]] = true
		}
		md := l.pos[rnd.Intn(len(l.pos))]
		if round == 0 {
			md = l.pos[len(l.pos)-1]
		}
		s.DropThrough(l, md)
		checkRangeSet(t, &s, l)
		for _, q := range l.pos {
			if want := in[q] && md.Less(q); want != s.Contains(q) {
				t.Fatalf("Contains(%v) after drop through %v = %v", q, md, !want)
			}
		}
		// Still usable after the drop.
		for _, i := range rnd.Perm(len(l.pos))[:100] {
			if md.Less(l.pos[i]) {
				s.Add(l, l.pos[i])
			}
		}
		checkRangeSet(t, &s, l)
	}
}
