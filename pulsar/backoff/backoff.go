// Package backoff is the official Go client's pulsar/backoff API: the
// Policy that spaces a producer's, consumer's or reader's reconnection
// attempts (ProducerOptions.BackOffPolicyFunc,
// ConsumerOptions.BackOffPolicyFunc, ReaderOptions.BackoffPolicyFunc) and
// its default. Code that imports
// github.com/apache/pulsar-client-go/pulsar/backoff ports by changing the
// import path.
package backoff

import (
	"time"

	ib "github.com/pulsargo/sdk/internal/backoff"
)

// Policy computes the delays between reconnection attempts.
//
//	Next() time.Duration        the delay before the next attempt
//	IsMaxBackoffReached() bool  whether the delays reached their maximum
//	Reset()                     start again, after a success
type Policy = ib.Policy

// DefaultBackoff is the default Policy: 100 ms, doubling up to 60 s, plus
// up to 20% of jitter. Create it with NewDefaultBackoff.
type DefaultBackoff = ib.Backoff

// NewDefaultBackoff returns the default Policy: the first delay is 100 ms
// (plus jitter), each next one doubles, up to 60 s.
func NewDefaultBackoff() Policy { return ib.NewDefault() }

// NewDefaultBackoffWithInitialBackOff returns the default Policy whose
// first delay is backoff (at least 100 ms); after Reset it starts from
// 100 ms, as the official client's.
func NewDefaultBackoffWithInitialBackOff(backoff time.Duration) Policy {
	return ib.NewWithInitial(backoff)
}
