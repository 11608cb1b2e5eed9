package protocol

// TooManyLookups is Pulsar's text for a lookup over
// maxConcurrentLookupRequest.
const TooManyLookups = "Failed due to too many pending lookup requests"

// acquireLookup takes one of the broker's Options.MaxConcurrentLookups
// permits for a LOOKUP or PARTITIONED_METADATA being answered, as
// Pulsar's lookup semaphore; it reports false (answer TooManyRequests)
// when none is free, and returns the function that gives it back.
func (b *Server) acquireLookup() (func(), bool) {
	max := int64(b.Cfg.MaxConcurrentLookups)
	if max < 0 {
		return func() {}, true
	}
	if b.Lookups.Add(1) > max {
		b.Lookups.Add(-1)
		return nil, false
	}
	return func() { b.Lookups.Add(-1) }, true
}
