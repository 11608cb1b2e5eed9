package ledger

import (
	"fmt"
	"math"
)

// Position is the place of one entry in a topic: ledger id and entry id.
// Positions are totally ordered: by ledger, then by entry.
type Position struct {
	Ledger int64
	Entry  int64
}

// Compare returns -1, 0 or +1 as p is before, at or after q.
func (p Position) Compare(q Position) int {
	switch {
	case p.Ledger < q.Ledger:
		return -1
	case p.Ledger > q.Ledger:
		return 1
	case p.Entry < q.Entry:
		return -1
	case p.Entry > q.Entry:
		return 1
	}
	return 0
}

// Less reports whether p comes before q.
func (p Position) Less(q Position) bool { return p.Compare(q) < 0 }

// String returns "ledger:entry".
func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Ledger, p.Entry) }

// Earliest and Latest are Pulsar's marker positions: Earliest (-1:-1) is
// before every entry, Latest (MaxInt64:MaxInt64) after every entry. Neither
// names an entry; both can be passed to Next, Prev, Scan and Get.
var (
	Earliest = Position{Ledger: -1, Entry: -1}
	Latest   = Position{Ledger: math.MaxInt64, Entry: math.MaxInt64}
)
