package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/keyshared"
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
	snap, err := b.eng.KeySharedOf(topic, subscription)
	if err != nil {
		return KeySharedState{}, err
	}
	return keySharedState(snap), nil
}

// keySharedState is the public form of a snapshot.
func keySharedState(snap engine.KsSnapshot) KeySharedState {
	out := KeySharedState{
		Mode:                    snap.Mode,
		AllowOutOfOrderDelivery: snap.OutOfOrder,
		Selector:                snap.Selector,
		KeyHashRange:            HashRange{Start: snap.HashRange.Start, End: snap.HashRange.End},
		ReplaySize:              snap.ReplaySize,
		LookAheadLimit:          snap.LookAheadLimit,
		ReadPosition:            pos(snap.ReadPos),
	}
	for _, c := range snap.Consumers {
		kc := KeySharedConsumer{ConsumerID: c.Id, Name: c.Name, Permits: c.Permits, Pending: c.Pending}
		for _, r := range c.Ranges {
			kc.Ranges = append(kc.Ranges, HashRange{Start: r.Start, End: r.End})
		}
		for _, d := range c.Draining {
			kc.DrainingHashes = append(kc.DrainingHashes, DrainingHash{Hash: d.Hash, Unacked: d.Unacked, Blocked: d.Blocked})
		}
		out.Consumers = append(out.Consumers, kc)
	}
	return out
}
