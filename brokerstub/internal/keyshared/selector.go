package keyshared

// ConsumerID identifies a consumer to the dispatcher. The broker gives each
// consumer of a subscription its own ConsumerID, so consumers with equal
// names are distinct.
type ConsumerID uint64

// Member is a consumer as the Key_Shared dispatcher sees it.
type Member struct {
	// ID is the consumer's identity; it must be unique in the subscription.
	ID ConsumerID
	// Name is the consumer name the client chose; the consistent-hashing
	// selector places the consumer on its ring by it.
	Name string
	// Label describes the consumer in error messages, as Pulsar's
	// Consumer.toString does.
	Label string
	// Ranges are the fixed hash ranges of a STICKY consumer, from its
	// KeySharedMeta.hash_ranges. Unused in AUTO_SPLIT mode.
	Ranges []Range
	// Permits reports how many more messages the consumer may receive now.
	Permits func() int64
	// Pending yields the sticky key hash of every entry the consumer holds
	// unacknowledged, once per entry. Nil means it holds nothing.
	Pending func(yield func(hash int32) bool)
}

// Assignment says that the hashes of Range go to Consumer.
type Assignment struct {
	Range    Range
	Consumer ConsumerID
}

// Selector maps sticky key hashes to consumers, as Pulsar's
// StickyKeyConsumerSelector implementations do.
type Selector interface {
	// Add places a consumer. It returns an *AssignError when the consumer
	// cannot be placed; the selector is then unchanged.
	Add(m *Member) error
	// Remove takes a consumer out; removing an unknown consumer is a no-op.
	Remove(id ConsumerID)
	// Select returns the consumer that owns hash, or false when none does.
	Select(hash int32) (ConsumerID, bool)
	// KeyHashRange is the range sticky key hashes are mapped into for this
	// selector (StickyKeyHash's second argument).
	KeyHashRange() Range
	// Assignments lists the hash ranges and their consumers, in hash order.
	Assignments() []Assignment
}

// AssignError is a consumer a selector cannot place (Pulsar's
// ConsumerAssignException). The broker answers the subscribe with
// ServerError ConsumerAssignError and Message.
type AssignError struct {
	Message string
}

// Error returns the message Pulsar sends to the client.
func (e *AssignError) Error() string { return e.Message }
