package keyshared

import "slices"

// Draining is PIP-379's draining-hashes tracker (Pulsar's
// DrainingHashesTracker). When a hash moves from consumer A to another
// consumer while A still holds unacknowledged entries of it, the hash is
// "draining" at A: it may go to no other consumer until A's count of
// unacknowledged entries of it reaches zero, or A leaves. Counts are of
// entries, as Pulsar's pending-acks map counts them.
type Draining struct {
	m map[int32]*drainEntry
}

type drainEntry struct {
	id      ConsumerID
	refs    int // entries of the hash the consumer still holds
	blocked int // times another consumer was refused the hash
}

// DrainingHash is the state of one draining hash, for inspection.
type DrainingHash struct {
	// Hash is the sticky key hash.
	Hash int32
	// Unacked is the number of entries of the hash the draining consumer
	// still holds.
	Unacked int
	// Blocked counts the times the hash was refused to another consumer.
	Blocked int
}

// NewDraining returns an empty tracker.
func NewDraining() *Draining { return &Draining{m: map[int32]*drainEntry{}} }

// Set makes h draining at id with refs entries; it reports false, changing
// nothing, when h is draining at another consumer. (Pulsar adds to the
// count of an existing entry instead; setting it to the number of entries
// the consumer actually holds avoids counting them twice when a hash that
// came back to its draining consumer moves away again.)
func (d *Draining) Set(id ConsumerID, h int32, refs int) bool {
	if h == HashNotSet || refs <= 0 {
		return true
	}
	if e, ok := d.m[h]; ok {
		if e.id != id {
			return false
		}
		e.refs = refs
		return true
	}
	d.m[h] = &drainEntry{id: id, refs: refs}
	return true
}

// Add counts one more entry of h held by id, making h draining at id if it
// was not; it reports false, changing nothing, when h is draining at
// another consumer.
func (d *Draining) Add(id ConsumerID, h int32) bool {
	if e, ok := d.m[h]; ok {
		if e.id != id {
			return false
		}
		e.refs++
		return true
	}
	return d.Set(id, h, 1)
}

// Reduce counts one entry of h fewer at id (acknowledged or given back); at
// zero the hash stops draining. It reports whether the hash stopped
// draining.
func (d *Draining) Reduce(id ConsumerID, h int32) bool {
	e, ok := d.m[h]
	if !ok || e.id != id {
		return false
	}
	if e.refs--; e.refs > 0 {
		return false
	}
	delete(d.m, h)
	return true
}

// Holder returns the consumer at which h is draining.
func (d *Draining) Holder(h int32) (ConsumerID, bool) {
	if e, ok := d.m[h]; ok {
		return e.id, true
	}
	return 0, false
}

// ShouldBlock reports whether an entry of h must be kept from id, as
// Pulsar's shouldBlockStickyKeyHash: it must when h is draining at another
// consumer (counted as a blocked attempt). When h is draining at id itself,
// the hash has come back to its holder: the entry is dropped and nothing is
// blocked.
func (d *Draining) ShouldBlock(id ConsumerID, h int32) bool {
	e, ok := d.m[h]
	switch {
	case h == HashNotSet || !ok:
		return false
	case e.id == id:
		delete(d.m, h)
		return false
	}
	e.blocked++
	return true
}

// Blocked counts one refused attempt to send h elsewhere.
func (d *Draining) Blocked(h int32) {
	if e, ok := d.m[h]; ok {
		e.blocked++
	}
}

// RemoveConsumer drops every hash draining at id (it left; what it held is
// queued for replay).
func (d *Draining) RemoveConsumer(id ConsumerID) {
	for h, e := range d.m {
		if e.id == id {
			delete(d.m, h)
		}
	}
}

// Of returns the hashes draining at id, in hash order.
func (d *Draining) Of(id ConsumerID) []DrainingHash {
	var out []DrainingHash
	for h, e := range d.m {
		if e.id == id {
			out = append(out, DrainingHash{Hash: h, Unacked: e.refs, Blocked: e.blocked})
		}
	}
	slices.SortFunc(out, func(a, b DrainingHash) int { return int(a.Hash - b.Hash) })
	return out
}

// Len returns the number of draining hashes.
func (d *Draining) Len() int { return len(d.m) }

// Clear forgets every draining hash.
func (d *Draining) Clear() { clear(d.m) }
