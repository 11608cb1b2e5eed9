package keyshared

import (
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Replay is a subscription's set of entries waiting to be delivered again
// (Pulsar's MessageRedeliveryController): positions in ascending order, each
// with the sticky key hash it was queued with (HashNotSet for
// non-Key_Shared subscriptions), so that a dispatch pass can hold a hash
// back without reading its entry. The zero value is empty and ready to use.
type Replay struct {
	pos    []ledger.Position // sorted, unique
	hashes []int32           // hashes[i] belongs to pos[i]
}

// Len returns the number of queued positions.
func (r *Replay) Len() int { return len(r.pos) }

// At returns the i-th queued position in ascending order, with its hash.
func (r *Replay) At(i int) (ledger.Position, int32) { return r.pos[i], r.hashes[i] }

// First returns the smallest queued position.
func (r *Replay) First() (ledger.Position, bool) {
	if len(r.pos) == 0 {
		return ledger.Position{}, false
	}
	return r.pos[0], true
}

func (r *Replay) search(p ledger.Position) (int, bool) {
	return slices.BinarySearchFunc(r.pos, p, ledger.Position.Compare)
}

// Contains reports whether p is queued.
func (r *Replay) Contains(p ledger.Position) bool {
	_, ok := r.search(p)
	return ok
}

// Add queues p with hash h; it reports false, changing nothing, when p is
// queued already.
func (r *Replay) Add(p ledger.Position, h int32) bool {
	i, found := r.search(p)
	if found {
		return false
	}
	r.pos = slices.Insert(r.pos, i, p)
	r.hashes = slices.Insert(r.hashes, i, h)
	return true
}

// Remove takes p out of the queue; it reports whether p was queued.
func (r *Replay) Remove(p ledger.Position) bool {
	i, found := r.search(p)
	if found {
		r.RemoveAt(i)
	}
	return found
}

// RemoveAt takes the i-th position out of the queue.
func (r *Replay) RemoveAt(i int) {
	r.pos = slices.Delete(r.pos, i, i+1)
	r.hashes = slices.Delete(r.hashes, i, i+1)
}

// Clear empties the queue.
func (r *Replay) Clear() {
	r.pos, r.hashes = r.pos[:0], r.hashes[:0]
}
