package brokerstub

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
	"github.com/pulsargo/sdk/internal/proto"
)

// HashRange is an inclusive range of sticky key hashes [Start, End].
type HashRange struct {
	Start, End int32
}

// Contains reports whether hash is in r.
func (r HashRange) Contains(hash int32) bool { return r.Start <= hash && hash <= r.End }

// KeySharedState is a snapshot of a Key_Shared subscription's dispatcher.
type KeySharedState struct {
	// Mode is "AUTO_SPLIT" or "STICKY".
	Mode string
	// AllowOutOfOrderDelivery is the subscription's relaxed-ordering flag.
	AllowOutOfOrderDelivery bool
	// Selector names the hash-to-consumer selector, after Pulsar's classes:
	// "ConsistentHashing" (the AUTO_SPLIT default), "HashRangeAutoSplit"
	// or "HashRangeExclusive" (STICKY).
	Selector string
	// KeyHashRange is the range sticky key hashes are mapped into by this
	// selector: [1, 65535] for consistent hashing, else [0, 65535].
	KeyHashRange HashRange
	// Consumers are the attached consumers, in the order they attached.
	Consumers []KeySharedConsumer
	// ReplaySize is the number of entries waiting to be delivered again.
	ReplaySize int
	// LookAheadLimit is the replay size at which dispatch stops reading new
	// entries.
	LookAheadLimit int
	// ReadPosition is the last entry dispatch has read.
	ReadPosition Position
}

// KeySharedConsumer is one consumer of a Key_Shared subscription.
type KeySharedConsumer struct {
	// ConsumerID is the id the client gave the consumer (unique on its
	// connection, not across connections).
	ConsumerID uint64
	// Name is the consumer name; several consumers may share it.
	Name string
	// Ranges are the hash ranges the selector gives the consumer, in hash
	// order.
	Ranges []HashRange
	// Permits is the number of messages the consumer may still receive.
	Permits int64
	// Pending is the number of entries delivered to the consumer and not
	// yet fully acknowledged.
	Pending int
	// DrainingHashes are the hashes that moved to another consumer while
	// this one still holds entries of them: no other consumer gets them
	// until it has acknowledged those entries or left (PIP-379).
	DrainingHashes []DrainingHash
}

// DrainingHash is a hash draining at a consumer.
type DrainingHash struct {
	// Hash is the sticky key hash.
	Hash int32
	// Unacked is the number of its entries the consumer still holds.
	Unacked int
	// Blocked counts the times the hash was kept from another consumer.
	Blocked int
}

// Hash returns the sticky key hash of key in the subscription's selector:
// Murmur3_32 (seed 0) of the key, masked to 31 bits and mapped into
// KeyHashRange, as Pulsar computes it. The key of a message is its ordering
// key, else its partition key.
func (s KeySharedState) Hash(key []byte) int32 {
	return keyshared.StickyKeyHash(key, keyshared.Range{Start: s.KeyHashRange.Start, End: s.KeyHashRange.End})
}

// ConsumerFor returns the consumer the selector gives key to now, or false
// when no consumer's ranges hold its hash.
func (s KeySharedState) ConsumerFor(key []byte) (KeySharedConsumer, bool) {
	h := s.Hash(key)
	for _, c := range s.Consumers {
		for _, r := range c.Ranges {
			if r.Contains(h) {
				return c, true
			}
		}
	}
	return KeySharedConsumer{}, false
}

// KeyShared returns a snapshot of the dispatcher of a Key_Shared
// subscription: per consumer its hash ranges, permits, pending entries and
// draining hashes, and the replay queue's size. It fails with
// ErrNoSubscription or ErrNotKeyShared.
func (b *Broker) KeyShared(topic, subscription string) (KeySharedState, error) {
	var out KeySharedState
	name, err := parseTopic(topic)
	if err != nil {
		return out, err
	}
	t, err := b.getTopic(name, false)
	if err != nil {
		return out, err
	}
	var found, keyShared bool
	callErr := t.call(func() {
		s := t.subs[subscription]
		if s == nil {
			return
		}
		found = true
		if s.ks == nil || s.typ != proto.CommandSubscribe_Key_Shared {
			return
		}
		keyShared = true
		out = s.keySharedState()
	})
	switch {
	case callErr != nil:
		return out, callErr
	case !found:
		return out, fmt.Errorf("%w: %s on %s", ErrNoSubscription, subscription, name.Full)
	case !keyShared:
		return out, fmt.Errorf("%w: %s on %s", ErrNotKeyShared, subscription, name.Full)
	}
	return out, nil
}
