package cursor

import (
	"math"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Position is the place of one entry in a topic (ledger:entry); it is the
// ledger package's Position.
type Position = ledger.Position

// Layout tells the cursor which positions exist in the topic. Positions are
// not contiguous integers: ledgers roll over, so after 5:2 may come 7:0.
// The ledger implements it; the cursor calls it from the owning goroutine.
type Layout interface {
	// Next returns the first existing position strictly after p
	// (p itself need not exist); false when there is none.
	Next(p Position) (Position, bool)
	// Prev returns the last existing position strictly before p
	// (p itself need not exist); false when there is none.
	Prev(p Position) (Position, bool)
}

// Counter is an optional extension of Layout. When the Layout given to the
// cursor implements it, Backlog uses range arithmetic (one call per
// individually deleted range) instead of walking the unacknowledged entries.
type Counter interface {
	// CountBetween returns the number of existing positions q with
	// after < q <= upTo (0 when upTo <= after).
	CountBetween(after, upTo Position) int
}

// justBefore returns the greatest position value strictly less than p. No
// position can lie strictly between justBefore(p) and p.
func justBefore(p Position) Position {
	if p.Entry == math.MinInt64 {
		return Position{Ledger: p.Ledger - 1, Entry: math.MaxInt64}
	}
	return Position{Ledger: p.Ledger, Entry: p.Entry - 1}
}

// exists reports whether p is a position of the layout.
func exists(l Layout, p Position) bool {
	q, ok := l.Next(justBefore(p))
	return ok && q == p
}

// adjacent reports whether b is the existing position right after a.
func adjacent(l Layout, a, b Position) bool {
	q, ok := l.Next(a)
	return ok && q == b
}
