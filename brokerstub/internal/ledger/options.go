package ledger

import (
	"errors"
	"time"
)

// DefaultRolloverEntries is the number of entries per ledger used when
// Options.RolloverEntries is 0.
const DefaultRolloverEntries = 50_000

// Options configure a Ledger. The zero value gives the defaults.
type Options struct {
	// RolloverEntries is how many entries a ledger holds before appends
	// move to a new ledger. 0 means DefaultRolloverEntries (50,000);
	// negative values are invalid. Tests use small values such as 1 or 3
	// to exercise ledger boundaries.
	RolloverEntries int
	// MaxSize starts a new ledger once the current one holds this many
	// bytes of metadata and payload (Pulsar's
	// managedLedgerMaxSizePerLedgerMbytes). 0: no limit.
	MaxSize int64
	// MaxRolloverTime starts a new ledger once the current one is this old
	// (managedLedgerMaxLedgerRolloverTimeMinutes), checked after each
	// append and by RollIfFull. 0: no limit.
	MaxRolloverTime time.Duration
	// MinRolloverTime keeps a ledger this long at least, whatever its
	// entries, size and age (managedLedgerMinLedgerRolloverTimeMinutes):
	// a ledger that is full by another rule rolls over at the first append
	// or RollIfFull after it. 0: none.
	MinRolloverTime time.Duration
	// Now is the clock that stamps Entry.BrokerTimestamp. nil means
	// time.Now.
	Now func() time.Time
	// Cache, when set and the store can read entries back
	// (store.EntryReader), bounds the entry bytes the Ledger keeps in
	// memory together with the other Ledgers sharing it (cache.go). nil
	// (the default) keeps every entry's bytes until its ledger is trimmed.
	Cache *Cache
}

// withDefaults returns o with zero fields replaced by their defaults.
func (o Options) withDefaults() (Options, error) {
	if o.RolloverEntries < 0 {
		return o, errors.New("ledger: negative RolloverEntries")
	}
	if o.RolloverEntries == 0 {
		o.RolloverEntries = DefaultRolloverEntries
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}
