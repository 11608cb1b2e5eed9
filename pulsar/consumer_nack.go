package pulsar

import "time"

// NackBackoffPolicy gives the redelivery delay of a negatively
// acknowledged message from how often it was redelivered, as the official
// Go client's interface of the same name (ConsumerOptions.NackBackoffPolicy).
type NackBackoffPolicy interface {
	// Next returns the delay for a message redelivered redeliveryCount
	// times before (0 on its first delivery).
	Next(redeliveryCount uint32) time.Duration
}

// The official client's default nack backoff
// (EnableDefaultNackBackoffPolicy): 1 s, doubling per redelivery, at most
// 10 min.
const (
	defaultNackBackoffMin = time.Second
	defaultNackBackoffMax = 10 * time.Minute
)

// defaultNackPrecisionBit is ConsumerOptions.NackPrecisionBit's default,
// the official client's: nacks are redelivered in 256 ms windows.
const defaultNackPrecisionBit = int64(8)

// defaultNackBackoffPolicy is the official client's default policy, under
// its name.
type defaultNackBackoffPolicy struct{}

// Next returns 1 s << redeliveryCount, at most 10 min.
func (defaultNackBackoffPolicy) Next(redeliveryCount uint32) time.Duration {
	if redeliveryCount >= 32 { // a shift this far passes the maximum (and overflows)
		return defaultNackBackoffMax
	}
	return min(defaultNackBackoffMin<<redeliveryCount, defaultNackBackoffMax)
}

// nackPolicy is the policy the options select, nil for a fixed delay.
func nackPolicy(opts ConsumerOptions) NackBackoffPolicy {
	switch {
	case opts.NackBackoffPolicy != nil:
		return opts.NackBackoffPolicy
	case opts.EnableDefaultNackBackoffPolicy:
		return defaultNackBackoffPolicy{}
	}
	return nil
}

// Nack asks for msg's redelivery after NackRedeliveryDelay, or after the
// NackBackoffPolicy's delay for its redelivery count.
func (cs *consumerImpl) Nack(msg Message) {
	e, id, err := cs.engineOf(msg)
	if err != nil {
		return
	}
	if p := cs.nackBackoff; p != nil {
		e.NackAfter(id, p.Next(msg.RedeliveryCount()))
		return
	}
	e.Nack(id)
}

// NackID is Nack by id; it always waits NackRedeliveryDelay (an id carries
// no redelivery count for a NackBackoffPolicy), as the official client.
func (cs *consumerImpl) NackID(id MessageID) {
	id, err := ownID(id)
	if err != nil {
		return
	}
	if e, err := cs.engineFor(id); err == nil {
		e.Nack(id)
	}
}
