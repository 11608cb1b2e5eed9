package brokerstub

// DefaultMaxConcurrentLookups is Options.MaxConcurrentLookups's default,
// Pulsar's maxConcurrentLookupRequest.
const DefaultMaxConcurrentLookups = 50_000

// tooManyLookups is Pulsar's text for a lookup over
// maxConcurrentLookupRequest.
const tooManyLookups = "Failed due to too many pending lookup requests"

// acquireLookup takes one of the broker's Options.MaxConcurrentLookups
// permits for a LOOKUP or PARTITIONED_METADATA being answered, as
// Pulsar's lookup semaphore; it reports false (answer TooManyRequests)
// when none is free, and returns the function that gives it back.
func (b *server) acquireLookup() (func(), bool) {
	max := int64(b.cfg.MaxConcurrentLookups)
	if max < 0 {
		return func() {}, true
	}
	if b.lookups.Add(1) > max {
		b.lookups.Add(-1)
		return nil, false
	}
	return func() { b.lookups.Add(-1) }, true
}
