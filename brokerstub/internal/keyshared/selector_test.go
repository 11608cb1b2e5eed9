package keyshared

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func member(id ConsumerID, name string, ranges ...Range) *Member {
	return &Member{ID: id, Name: name, Label: "Consumer{" + name + "}", Ranges: ranges}
}

// checkAssignments verifies that Assignments covers the key hash range as
// Select does.
func checkAssignments(t *testing.T, s Selector) {
	t.Helper()
	as := s.Assignments()
	kr := s.KeyHashRange()
	for h := kr.Start; h <= kr.End; h++ {
		if h == HashNotSet {
			continue
		}
		got, ok := s.Select(h)
		var want ConsumerID
		found := false
		for _, a := range as {
			if a.Range.Contains(h) {
				want, found = a.Consumer, true
				break
			}
		}
		require.Equal(t, found, ok, "hash %d", h)
		require.Equal(t, want, got, "hash %d", h)
	}
}

func TestConsistentDistribution(t *testing.T) {
	c := NewConsistent(0)
	for i := range 3 {
		require.NoError(t, c.Add(member(ConsumerID(i+1), fmt.Sprint("c", i+1))))
	}
	counts := map[ConsumerID]int{}
	for k := range 300 {
		id, ok := c.Select(StickyKeyHash(fmt.Appendf(nil, "key-%d", k), c.KeyHashRange()))
		require.True(t, ok)
		counts[id]++
	}
	for id, n := range counts {
		assert.InDelta(t, 100, n, 40, "consumer %d", id)
	}
	checkAssignments(t, c)
}

// TestConsistentPointKeys pins the ring: the points of "c1" with name
// index 0 are Murmur of "c1\0" "0\0" "<i>", mapped into [1, 65535].
func TestConsistentPointKeys(t *testing.T) {
	c := NewConsistent(100)
	require.NoError(t, c.Add(member(7, "c1")))
	require.Len(t, c.ring, 100)
	for _, h := range []int32{34662, 10952} { // "c1\x000\x000", "c1\x000\x0099"
		id, ok := c.Select(h)
		require.True(t, ok)
		assert.Equal(t, ConsumerID(7), id)
		_, found := c.find(h)
		assert.True(t, found, "point %d on the ring", h)
	}
}

func TestConsistentSameNameConsumersAreDistinct(t *testing.T) {
	c := NewConsistent(100)
	require.NoError(t, c.Add(member(1, "same")))
	require.NoError(t, c.Add(member(2, "same")))
	n := map[ConsumerID]int{}
	for _, a := range c.Assignments() {
		n[a.Consumer] += int(a.Range.Size())
	}
	assert.Greater(t, n[1], 10000)
	assert.Greater(t, n[2], 10000)
	checkAssignments(t, c)

	// The second gets name index 1; after it leaves and another "same"
	// joins, that one gets index 1 again and the same hashes.
	before := c.Assignments()
	c.Remove(2)
	require.NoError(t, c.Add(member(3, "same")))
	after := c.Assignments()
	require.Len(t, after, len(before))
	for i := range before {
		assert.Equal(t, before[i].Range, after[i].Range)
		if before[i].Consumer == 2 {
			assert.Equal(t, ConsumerID(3), after[i].Consumer)
		}
	}
}

// TestConsistentCollisionsQueue finds two consumer names with a colliding
// point: the point stays with the first, and passes to the second when the
// first leaves.
func TestConsistentCollisionsQueue(t *testing.T) {
	owner := map[int32]string{}
	var a, b string
	var h int32
search:
	for i := range 2000 {
		name := fmt.Sprint("n", i)
		for p := range 20 {
			ph := pointHash(name, 0, p)
			if other, ok := owner[ph]; ok && other != name {
				a, b, h = other, name, ph
				break search
			}
			owner[ph] = name
		}
	}
	require.NotEmpty(t, b, "no collision found")
	c := NewConsistent(20)
	require.NoError(t, c.Add(member(1, a)))
	require.NoError(t, c.Add(member(2, b)))
	id, _ := c.Select(h)
	assert.Equal(t, ConsumerID(1), id, "the first consumer keeps the point")
	c.Remove(1)
	id, _ = c.Select(h)
	assert.Equal(t, ConsumerID(2), id, "the queued consumer takes over")
	c.Remove(2)
	assert.Empty(t, c.ring)
	_, ok := c.Select(h)
	assert.False(t, ok)
}

func TestAutoSplit(t *testing.T) {
	a := NewAutoSplit()
	require.NoError(t, a.Add(member(1, "c1")))
	assert.Equal(t, []Assignment{{Range{0, 65536}, 1}}, a.Assignments())
	require.NoError(t, a.Add(member(2, "c2")))
	assert.Equal(t, []Assignment{{Range{0, 32768}, 2}, {Range{32769, 65536}, 1}}, a.Assignments())
	require.NoError(t, a.Add(member(3, "c3")))
	// Equal halves: the first (lowest) one is split.
	assert.Equal(t, []Assignment{{Range{0, 16384}, 3}, {Range{16385, 32768}, 2}, {Range{32769, 65536}, 1}}, a.Assignments())
	checkAssignments(t, a)
	// A leaving consumer's range goes to the consumer above it...
	a.Remove(3)
	assert.Equal(t, []Assignment{{Range{0, 32768}, 2}, {Range{32769, 65536}, 1}}, a.Assignments())
	// ...and the topmost one's to the consumer below.
	a.Remove(1)
	assert.Equal(t, []Assignment{{Range{0, 65536}, 2}}, a.Assignments())
	a.Remove(2)
	_, ok := a.Select(5)
	assert.False(t, ok)
}

func TestAutoSplitRunsOutOfRanges(t *testing.T) {
	a := &AutoSplit{ends: []splitEnd{{end: 1, id: 1}, {end: 2, id: 2}}}
	err := a.Add(member(3, "c3"))
	var ae *AssignError
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, "No more range can assigned to new consumer, assigned consumers 2", ae.Error())
}

func TestStickyRanges(t *testing.T) {
	s := NewSticky()
	require.NoError(t, s.Add(member(1, "c1", Range{0, 99}, Range{400, 65535})))
	require.NoError(t, s.Add(member(2, "c2", Range{100, 399})))
	for h, want := range map[int32]ConsumerID{0: 1, 99: 1, 100: 2, 399: 2, 400: 1, 65535: 1} {
		id, ok := s.Select(h)
		require.True(t, ok, "hash %d", h)
		assert.Equal(t, want, id, "hash %d", h)
	}
	checkAssignments(t, s)

	for _, c := range []struct {
		ranges []Range
		msg    string
	}{
		{nil, "Ranges for KeyShared policy must not be empty."},
		{[]Range{{5, 4}}, "Fixed hash range start > end for range: [5,4]"},
		{[]Range{{10, 20}, {20, 30}}, "Consumer's own ranges conflict: [10,20] overlaps with [20,30]"},
		{[]Range{{0, 65535}}, "Range conflict with consumer Consumer{c1}"},
		{[]Range{{1, 1}}, "Range conflict with consumer Consumer{c1}"},
		{[]Range{{399, 500}}, "Range conflict with consumer Consumer{c2}"},
	} {
		err := s.Add(member(3, "c3", c.ranges...))
		var ae *AssignError
		require.True(t, errors.As(err, &ae), "%v", c.ranges)
		assert.Equal(t, c.msg, ae.Message)
	}
	// After c1 leaves its ranges are free, and uncovered hashes go nowhere.
	s.Remove(1)
	_, ok := s.Select(50)
	assert.False(t, ok)
	require.NoError(t, s.Add(member(4, "c4", Range{50, 99})))
	id, _ := s.Select(50)
	assert.Equal(t, ConsumerID(4), id)
	checkAssignments(t, s)
}
