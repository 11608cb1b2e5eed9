package brokerstub

// KeySharedOptions configure Key_Shared dispatch, as the broker settings of
// the same names in Pulsar. The zero value is Pulsar 4.x's defaults.
//
// The stub's Key_Shared dispatcher follows Pulsar 4.x (PIP-379, "draining
// hashes"): messages are routed by the sticky key hash (Murmur3_32 of the
// ordering key, else the partition key, else "<producer>-<sequence>"); in
// the default ordered mode a key is pending at one consumer at a time, a
// key that moves to a new consumer waits until the old one has
// acknowledged what it holds of it, messages waiting for redelivery go
// before newer messages of their key, and a consumer without permits holds
// back only its own keys. Inspect it with Broker.KeyShared, and check a
// consumers' log with package keyorder.
//
// Two differences from Pulsar, both on the side of ordering: a negatively
// acknowledged message keeps its key's place (it goes before newer
// messages of its key; Pulsar may lose the key there), and all chunks of a
// chunked message go to the consumer that received its first chunk, also
// while keys move between consumers — no official broker does this for
// Key_Shared, where a chunked message can stall or be split when
// consumers come and go.
type KeySharedOptions struct {
	// HashRangeAutoSplit makes AUTO_SPLIT consumers use Pulsar's auto-split
	// hash-range selector (each new consumer takes half of the largest
	// range) instead of consistent hashing
	// (subscriptionKeySharedUseConsistentHashing=false). Default false:
	// consistent hashing.
	HashRangeAutoSplit bool
	// ReplicaPoints is the number of points each consumer puts on the
	// consistent-hashing ring
	// (subscriptionKeySharedConsistentHashingReplicaPoints). Default 100.
	ReplicaPoints int
	// LookAheadPerConsumer and LookAheadPerSubscription bound how far
	// dispatch reads ahead of entries it cannot deliver yet: new entries are
	// read only while fewer than min(LookAheadPerConsumer × consumers,
	// LookAheadPerSubscription) entries wait for redelivery
	// (keySharedLookAheadMsgInReplayThresholdPerConsumer and
	// ...PerSubscription). Defaults 2000 and 20000; a negative value
	// disables that limit.
	LookAheadPerConsumer     int
	LookAheadPerSubscription int
}
