package keyshared

import (
	"slices"
	"sort"
	"strconv"
)

// DefaultReplicaPoints is the number of points each consumer gets on the
// consistent-hashing ring (Pulsar's
// subscriptionKeySharedConsistentHashingReplicaPoints default).
const DefaultReplicaPoints = 100

// consistentRange is the key hash range of the consistent-hashing selector:
// [1, 65535], as Pulsar's ConsistentHashingStickyKeyConsumerSelector.
var consistentRange = Range{Start: HashNotSet + 1, End: RangeSize - 1}

// Consistent is Pulsar's default AUTO_SPLIT selector
// (ConsistentHashingStickyKeyConsumerSelector of Pulsar 4.x): each consumer
// puts a number of points on a ring of hashes; a hash belongs to the consumer
// of the first point at or after it, wrapping around. The point keys are
// "<name>\0<name index>\0<point index>", where the name index is the lowest
// index not used by another consumer of the same name, so consumers with
// equal names get different points. A point that collides with an existing
// one queues behind it and takes over when the earlier consumer leaves.
type Consistent struct {
	points int
	ring   []ringPoint // sorted by hash
	idx    map[ConsumerID]nameIndex
	used   map[string]map[int]bool // name -> name indexes in use
}

type ringPoint struct {
	hash      int32
	selected  ConsumerID
	colliding []ConsumerID
}

type nameIndex struct {
	name  string
	index int
}

// NewConsistent returns an empty consistent-hashing selector with the given
// number of points per consumer; points < 1 means DefaultReplicaPoints.
func NewConsistent(points int) *Consistent {
	if points < 1 {
		points = DefaultReplicaPoints
	}
	return &Consistent{points: points, idx: map[ConsumerID]nameIndex{}, used: map[string]map[int]bool{}}
}

// KeyHashRange returns [1, 65535].
func (c *Consistent) KeyHashRange() Range { return consistentRange }

func pointHash(name string, nameIdx, i int) int32 {
	key := name + "\x00" + strconv.Itoa(nameIdx) + "\x00" + strconv.Itoa(i)
	return StickyKeyHash([]byte(key), consistentRange)
}

func (c *Consistent) find(h int32) (int, bool) {
	return slices.BinarySearchFunc(c.ring, h, func(p ringPoint, h int32) int { return int(p.hash - h) })
}

// Add puts m's points on the ring. It never fails.
func (c *Consistent) Add(m *Member) error {
	if _, ok := c.idx[m.ID]; ok {
		return nil
	}
	slots := c.used[m.Name]
	if slots == nil {
		slots = map[int]bool{}
		c.used[m.Name] = slots
	}
	n := 0
	for slots[n] {
		n++
	}
	slots[n] = true
	c.idx[m.ID] = nameIndex{name: m.Name, index: n}
	for i := range c.points {
		h := pointHash(m.Name, n, i)
		j, found := c.find(h)
		if found {
			c.ring[j].colliding = append(c.ring[j].colliding, m.ID)
			continue
		}
		c.ring = slices.Insert(c.ring, j, ringPoint{hash: h, selected: m.ID})
	}
	return nil
}

// Remove takes id's points off the ring; a point it shared goes to the
// consumer queued first behind it.
func (c *Consistent) Remove(id ConsumerID) {
	ni, ok := c.idx[id]
	if !ok {
		return
	}
	delete(c.idx, id)
	delete(c.used[ni.name], ni.index)
	if len(c.used[ni.name]) == 0 {
		delete(c.used, ni.name)
	}
	for i := range c.points {
		j, found := c.find(pointHash(ni.name, ni.index, i))
		if !found {
			continue
		}
		p := &c.ring[j]
		switch {
		case p.selected == id && len(p.colliding) > 0:
			p.selected = p.colliding[0]
			p.colliding = slices.Delete(p.colliding, 0, 1)
		case p.selected == id:
			c.ring = slices.Delete(c.ring, j, j+1)
		default:
			if k := slices.Index(p.colliding, id); k >= 0 {
				p.colliding = slices.Delete(p.colliding, k, k+1)
			}
		}
	}
}

// Select returns the consumer of the first point at or after hash, wrapping
// around to the first point.
func (c *Consistent) Select(hash int32) (ConsumerID, bool) {
	if len(c.ring) == 0 {
		return 0, false
	}
	j := sort.Search(len(c.ring), func(i int) bool { return c.ring[i].hash >= hash })
	if j == len(c.ring) {
		j = 0
	}
	return c.ring[j].selected, true
}

// Assignments returns the ring as ranges, adjacent ranges of one consumer
// joined, the range after the last point going to the first point's
// consumer, as Pulsar's consumer hash assignment snapshot.
func (c *Consistent) Assignments() []Assignment {
	if len(c.ring) == 0 {
		return nil
	}
	var out []Assignment
	start := consistentRange.Start
	for i, p := range c.ring {
		if i > 0 && out[len(out)-1].Consumer == p.selected {
			out[len(out)-1].Range.End = p.hash
		} else {
			out = append(out, Assignment{Range: Range{Start: start, End: p.hash}, Consumer: p.selected})
		}
		start = p.hash + 1
	}
	last := c.ring[len(c.ring)-1].hash
	if last != consistentRange.End {
		first := c.ring[0].selected
		if out[len(out)-1].Consumer == first {
			out[len(out)-1].Range.End = consistentRange.End
		} else {
			out = append(out, Assignment{Range: Range{Start: last + 1, End: consistentRange.End}, Consumer: first})
		}
	}
	return out
}
