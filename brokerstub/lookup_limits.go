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
	max := int64(b.opts.MaxConcurrentLookups)
	if max < 0 {
		return func() {}, true
	}
	if b.lookups.Add(1) > max {
		b.lookups.Add(-1)
		return nil, false
	}
	return func() { b.lookups.Add(-1) }, true
}

// lookupLimits reads maxConcurrentLookupRequest and
// maxConcurrentTopicLoadRequest. brokerstub loads one topic at a time,
// within any topic-load limit of 1 or more; 0 (with which Pulsar would
// queue every topic load for ever) is refused, as is a lookup limit of 0
// (every lookup refused).
func (p *configParser) lookupLimits(o *Options) {
	if n := p.int("maxConcurrentLookupRequest", DefaultMaxConcurrentLookups, 0); n == 0 {
		p.fail("maxConcurrentLookupRequest", "0", "no lookup could succeed; set a number of lookups > 0")
	} else {
		o.MaxConcurrentLookups = int(n)
	}
	if n := p.int("maxConcurrentTopicLoadRequest", 5000, 0); n == 0 {
		p.fail("maxConcurrentTopicLoadRequest", "0", "no topic could load; set a number > 0 (brokerstub loads one topic at a time)")
	}
}
