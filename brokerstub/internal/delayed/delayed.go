// Package delayed is the delayed-delivery tracker of a Shared or Key_Shared
// subscription, as Pulsar's InMemoryDelayedDeliveryTracker: the positions
// of entries read with a deliver_at_time still in the future, ordered by
// that time, until they fall due.
//
// The tracker is not persisted, as in Pulsar: the delivery time is in the
// stored entry, and a subscription that reads again from its mark-delete
// position (after a restart, a crash or a rewind) tracks its delayed
// entries again as it reads them.
package delayed

import (
	"slices"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// item is one held entry.
type item struct {
	at  int64 // deliver_at_time, Unix milliseconds
	pos ledger.Position
}

func (a item) compare(b item) int {
	switch {
	case a.at < b.at:
		return -1
	case a.at > b.at:
		return 1
	}
	return a.pos.Compare(b.pos)
}

// Tracker holds delayed entries. Cutoff rules follow Pulsar: an entry is
// held when its time is after now + tick (or after now when strict), so
// that non-strict delivery may be up to one tick early. The zero value is
// unusable; use New.
type Tracker struct {
	tick   int64 // milliseconds; 0 when strict
	items  []item
	member map[ledger.Position]int64
}

// New returns an empty tracker. tickMillis is Pulsar's
// delayedDeliveryTickTimeMillis; strict is its
// isDelayedDeliveryDeliverAtTimeStrict.
func New(tickMillis int64, strict bool) *Tracker {
	t := &Tracker{member: map[ledger.Position]int64{}}
	if !strict && tickMillis > 0 {
		t.tick = tickMillis
	}
	return t
}

func (t *Tracker) cutoff(now int64) int64 { return now + t.tick }

// Add holds p until at (Unix ms) if at is beyond the cutoff at now; it
// reports whether p is held (false: deliver it now). Adding a held position
// again keeps it held once.
func (t *Tracker) Add(p ledger.Position, at, now int64) bool {
	if _, ok := t.member[p]; ok {
		return true
	}
	if at <= 0 || at <= t.cutoff(now) {
		return false
	}
	it := item{at: at, pos: p}
	i, _ := slices.BinarySearchFunc(t.items, it, item.compare)
	t.items = slices.Insert(t.items, i, it)
	t.member[p] = at
	return true
}

// Contains reports whether p is held.
func (t *Tracker) Contains(p ledger.Position) bool {
	_, ok := t.member[p]
	return ok
}

// Due removes and returns the held positions whose time has come at now,
// in position order (as Pulsar's getScheduledMessages).
func (t *Tracker) Due(now int64) []ledger.Position {
	c := t.cutoff(now)
	n := 0
	for n < len(t.items) && t.items[n].at <= c {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make([]ledger.Position, n)
	for i, it := range t.items[:n] {
		out[i] = it.pos
		delete(t.member, it.pos)
	}
	t.items = slices.Delete(t.items, 0, n)
	slices.SortFunc(out, ledger.Position.Compare)
	return out
}

// Next returns the earliest delivery time held (Unix ms).
func (t *Tracker) Next() (int64, bool) {
	if len(t.items) == 0 {
		return 0, false
	}
	return t.items[0].at, true
}

// Len returns the number of held entries.
func (t *Tracker) Len() int { return len(t.items) }

// All returns the held positions in position order.
func (t *Tracker) All() []ledger.Position {
	out := make([]ledger.Position, 0, len(t.items))
	for _, it := range t.items {
		out = append(out, it.pos)
	}
	slices.SortFunc(out, ledger.Position.Compare)
	return out
}

// Clear drops everything held.
func (t *Tracker) Clear() {
	t.items = t.items[:0]
	clear(t.member)
}

// SetTick changes the tick (a policy changed it), as Pulsar's
// resetTickTime; Due uses the new cutoff from now on.
func (t *Tracker) SetTick(tickMillis int64, strict bool) {
	t.tick = 0
	if !strict && tickMillis > 0 {
		t.tick = tickMillis
	}
}
