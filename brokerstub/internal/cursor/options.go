package cursor

import "time"

// Defaults of Options, named after the Pulsar broker settings they model.
const (
	// DefaultFlushInterval is managedLedgerCursorPositionFlushSeconds (60 s).
	DefaultFlushInterval = 60 * time.Second
	// DefaultMarkDeleteRate is managedLedgerDefaultMarkDeleteRateLimit (1.0
	// mark-delete persist operations per second).
	DefaultMarkDeleteRate = 1.0
	// DefaultMaxRanges is managedLedgerMaxUnackedRangesToPersist (10,000).
	DefaultMaxRanges = 10000
	// DefaultMaxBatchIndexes is managedLedgerMaxBatchDeletedIndexToPersist
	// (10,000).
	DefaultMaxBatchIndexes = 10000
)

// Options are a cursor's persistence knobs. New and Restore fill zero fields
// with their defaults, except MarkDeleteRate, whose zero value means
// "unlimited" as in Pulsar; DefaultOptions returns every default.
type Options struct {
	// FlushInterval is how long after the last flush MaybeFlush persists a
	// dirty cursor (Pulsar's managedLedgerCursorPositionFlushSeconds).
	// Zero means DefaultFlushInterval (60 s); a negative value disables the
	// periodic flush (only Flush and rate-permitted acks persist then).
	FlushInterval time.Duration

	// MarkDeleteRate is the number of immediate persist operations per
	// second that acknowledgments may trigger (Pulsar's
	// managedLedgerDefaultMarkDeleteRateLimit, a Guava RateLimiter with one
	// second of burst). An ack that the limiter denies leaves the cursor
	// dirty for the periodic flush. Zero or negative means unlimited (every
	// changing ack asks for an immediate persist); DefaultMarkDeleteRate is
	// Pulsar's 1.0.
	MarkDeleteRate float64

	// MaxRanges caps the individually deleted ranges written by a flush
	// (Pulsar's managedLedgerMaxUnackedRangesToPersist): the MaxRanges ranges
	// nearest to the mark-delete position are kept, the rest are dropped
	// from the persisted state (those entries are redelivered after a
	// recovery, never lost). Zero or negative means DefaultMaxRanges (10,000).
	MaxRanges int

	// MaxBatchIndexes caps the batch-index bitmaps written by a flush
	// (Pulsar's managedLedgerMaxBatchDeletedIndexToPersist). What is counted
	// is ENTRIES (positions with a partial-ack bitmap), not bits or words, as
	// in Pulsar: the MaxBatchIndexes lowest such entries are persisted, each
	// with its whole bitmap (at most ceil(batchSize/64) words); the bitmaps
	// of later entries are dropped, so after a recovery those whole batches
	// are redelivered. Zero or negative means DefaultMaxBatchIndexes (10,000).
	MaxBatchIndexes int

	// Now is the clock; nil means time.Now. Tests inject a fake clock.
	Now func() time.Time
}

// DefaultOptions returns Pulsar's defaults: 60 s flush interval, 1.0
// mark-delete persists per second, 10,000 ranges and 10,000 batch entries
// persisted, the real clock.
func DefaultOptions() Options {
	return Options{
		FlushInterval:   DefaultFlushInterval,
		MarkDeleteRate:  DefaultMarkDeleteRate,
		MaxRanges:       DefaultMaxRanges,
		MaxBatchIndexes: DefaultMaxBatchIndexes,
		Now:             time.Now,
	}
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.FlushInterval == 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.MarkDeleteRate < 0 {
		o.MarkDeleteRate = 0
	}
	if o.MaxRanges <= 0 {
		o.MaxRanges = DefaultMaxRanges
	}
	if o.MaxBatchIndexes <= 0 {
		o.MaxBatchIndexes = DefaultMaxBatchIndexes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
