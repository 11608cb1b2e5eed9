package avro

import "math"

// setMinSizes computes the fewest bytes a value of each node takes; a
// record that contains itself counts the recursion as nothing.
func setMinSizes(n *node, seen map[*node]bool) int {
	if seen[n] { // done, or a record being computed (counted as 0 so far)
		return n.minSize
	}
	seen[n] = true
	switch n.kind {
	case Null:
		n.minSize = 0
	case Float:
		n.minSize = 4
	case Double:
		n.minSize = 8
	case Fixed:
		n.minSize = n.size
	case Record:
		sum := 0
		for _, f := range n.fields {
			sum += setMinSizes(f.typ, seen)
			if sum > math.MaxInt32 {
				sum = math.MaxInt32
			}
		}
		n.minSize = sum
	case Array:
		setMinSizes(n.items, seen)
		n.minSize = 1
	case Map:
		setMinSizes(n.values, seen)
		n.minSize = 1
	case Union:
		for _, t := range n.types {
			setMinSizes(t, seen)
		}
		n.minSize = 1
		n.resolved = resolvedUnion(n)
	default: // varints, lengths, enum indexes
		n.minSize = 1
	}
	return n.minSize
}
