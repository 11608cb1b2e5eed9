package keyshared

import (
	"fmt"
	"math"
	"slices"

	"github.com/pulsargo/sdk/internal/proto"
)

// Look-ahead defaults of Pulsar 4.x
// (keySharedLookAheadMsgInReplayThresholdPerConsumer and
// ...PerSubscription).
const (
	DefaultLookAheadPerConsumer     = 2000
	DefaultLookAheadPerSubscription = 20000
)

// Config is the policy of a Key_Shared subscription: what its first
// consumer's KeySharedMeta asked for, and the broker's settings.
type Config struct {
	// Mode is AUTO_SPLIT (the default) or STICKY.
	Mode proto.KeySharedMode
	// AllowOutOfOrderDelivery relaxes ordering as Pulsar does: no draining
	// hashes and no holding newer entries behind queued redeliveries; only
	// the selector routes.
	AllowOutOfOrderDelivery bool
	// HashRangeAutoSplit selects Pulsar's auto-split hash-range selector for
	// AUTO_SPLIT mode instead of consistent hashing (the broker's
	// subscriptionKeySharedUseConsistentHashing=false). Default false.
	HashRangeAutoSplit bool
	// ReplicaPoints is the number of ring points per consumer of the
	// consistent-hashing selector. Default DefaultReplicaPoints (100).
	ReplicaPoints int
	// LookAheadPerConsumer and LookAheadPerSubscription bound the replay
	// queue: new entries are read only while it holds fewer than
	// min(LookAheadPerConsumer × consumers, LookAheadPerSubscription)
	// positions. Zero means the default (2000 and 20000); a negative value
	// disables that limit, and with both disabled nothing is bounded.
	LookAheadPerConsumer     int
	LookAheadPerSubscription int
}

// KeyShared is the state and the decisions of one Key_Shared subscription's
// dispatcher; the broker reads entries and sends them. See the package
// documentation for the model.
type KeyShared struct {
	cfg      Config
	sel      Selector
	replay   *Replay
	draining *Draining // nil unless AUTO_SPLIT and ordered

	members []*Member // in attach order
	byID    map[ConsumerID]*Member

	// chunks maps the uuid of a chunked message whose first chunk was
	// delivered, and whose last one was not yet, to its consumer.
	chunks map[string]chunkOwner
	// holders counts, per hash, the unfinished chunked messages a consumer
	// holds (AUTO_SPLIT ordered only): every entry of the hash goes to it.
	holders map[int32]holder
}

type chunkOwner struct {
	id   ConsumerID
	hash int32
}

type holder struct {
	id ConsumerID
	n  int
}

// Entry is what the dispatcher needs to know about an entry.
type Entry struct {
	// Hash is the entry's sticky key hash in the selector's KeyHashRange.
	Hash int32
	// ChunkUUID is the uuid of the chunked message the entry is a chunk of,
	// or "" when it is not a chunk.
	ChunkUUID string
	// ChunkID and NumChunks place a chunk in its message.
	ChunkID, NumChunks int32
}

// NewKeyShared returns the dispatcher state of a subscription with policy
// cfg whose redeliveries wait in replay.
func NewKeyShared(cfg Config, replay *Replay) *KeyShared {
	k := &KeyShared{cfg: cfg, replay: replay, byID: map[ConsumerID]*Member{},
		chunks: map[string]chunkOwner{}, holders: map[int32]holder{}}
	switch {
	case cfg.Mode == proto.KeySharedMode_STICKY:
		k.sel = NewSticky()
	case cfg.HashRangeAutoSplit:
		k.sel = NewAutoSplit()
	default:
		k.sel = NewConsistent(cfg.ReplicaPoints)
	}
	if cfg.Mode == proto.KeySharedMode_AUTO_SPLIT && !cfg.AllowOutOfOrderDelivery {
		k.draining = NewDraining()
	}
	return k
}

// Config returns the subscription's policy.
func (k *KeyShared) Config() Config { return k.cfg }

// Selector returns the selector (for inspection; do not Add or Remove
// through it).
func (k *KeyShared) Selector() Selector { return k.sel }

// Hash maps a Murmur31 value into the selector's key hash range.
func (k *KeyShared) Hash(m uint32) int32 { return HashInRange(m, k.sel.KeyHashRange()) }

func (k *KeyShared) ordered() bool { return !k.cfg.AllowOutOfOrderDelivery }

// BusyError refuses a consumer whose Key_Shared policy differs from the
// subscription's while it has consumers (Pulsar's
// SubscriptionBusyException). The broker answers the subscribe with
// ServerError ConsumerBusy and Message.
type BusyError struct {
	Message string
}

// Error returns the message Pulsar sends to the client.
func (e *BusyError) Error() string { return e.Message }

// CheckPolicy tells whether a consumer asking for mode and outOfOrder may
// join while consumers are attached; it returns a *BusyError with Pulsar's
// message when not.
func (k *KeyShared) CheckPolicy(mode proto.KeySharedMode, outOfOrder bool) error {
	const prefix = "Subscription is of different type. "
	switch {
	case mode != k.cfg.Mode:
		return &BusyError{Message: fmt.Sprintf(prefix+"Active subscription key_shared mode of '%s' "+
			"is different than the connecting consumer's key_shared mode '%s'.", k.cfg.Mode, mode)}
	case outOfOrder == k.cfg.AllowOutOfOrderDelivery:
		return nil
	case k.cfg.AllowOutOfOrderDelivery:
		return &BusyError{Message: prefix + "Active subscription allows out of order delivery " +
			"while the connecting consumer does not allow it."}
	}
	return &BusyError{Message: prefix + "Active subscription does not allow out of order " +
		"delivery while the connecting consumer allows it."}
}

// Len returns the number of attached consumers.
func (k *KeyShared) Len() int { return len(k.members) }

// Add attaches m. The selector may refuse it (an *AssignError). In ordered
// AUTO_SPLIT mode, the hashes that move away from a consumer that holds
// entries of them start draining there.
func (k *KeyShared) Add(m Member) error {
	if _, dup := k.byID[m.ID]; dup {
		return fmt.Errorf("keyshared: consumer %d is attached already", m.ID)
	}
	before := k.ownedPending(m.ID)
	if err := k.sel.Add(&m); err != nil {
		return err
	}
	k.members = append(k.members, &m)
	k.byID[m.ID] = &m
	k.registerDraining(before) // PIP-282's first scenario: moved hashes drain first
	return nil
}

// Remove detaches id; the caller has queued what it held for replay. Its
// draining hashes and chunk ownerships end; hashes the change moves away
// from other consumers start draining there.
func (k *KeyShared) Remove(id ConsumerID) {
	if _, ok := k.byID[id]; !ok {
		return
	}
	before := k.ownedPending(id)
	k.sel.Remove(id)
	k.members = slices.DeleteFunc(k.members, func(m *Member) bool { return m.ID == id })
	delete(k.byID, id)
	for uuid, o := range k.chunks {
		if o.id == id {
			k.dropChunk(uuid)
		}
	}
	if k.draining != nil {
		k.draining.RemoveConsumer(id)
		k.registerDraining(before)
		if len(k.members) == 0 {
			k.draining.Clear()
		}
	}
}

// Reset forgets every consumer and all dispatch state (the subscription
// was reset or lost its consumers).
func (k *KeyShared) Reset() {
	for _, m := range slices.Clone(k.members) {
		k.sel.Remove(m.ID)
	}
	k.members, k.byID = nil, map[ConsumerID]*Member{}
	k.Forget()
}

// Forget drops what the dispatcher knows about deliveries in flight —
// draining hashes and chunk ownership — while the consumers stay (the
// subscription's cursor was reset and what they held is void).
func (k *KeyShared) Forget() {
	clear(k.chunks)
	clear(k.holders)
	if k.draining != nil {
		k.draining.Clear()
	}
}

// ownedPending counts, per consumer other than skip, the entries it holds
// of each hash the selector currently gives it.
func (k *KeyShared) ownedPending(skip ConsumerID) map[ConsumerID]map[int32]int {
	if k.draining == nil {
		return nil
	}
	out := map[ConsumerID]map[int32]int{}
	for _, m := range k.members {
		if m.ID == skip || m.Pending == nil {
			continue
		}
		for h := range m.Pending {
			if owner, ok := k.sel.Select(h); ok && owner == m.ID {
				if out[m.ID] == nil {
					out[m.ID] = map[int32]int{}
				}
				out[m.ID][h]++
			}
		}
	}
	return out
}

// registerDraining makes draining, at their holder, the hashes of before
// that the selector no longer gives to it (Pulsar's
// registerDrainingHashes).
func (k *KeyShared) registerDraining(before map[ConsumerID]map[int32]int) {
	for id, hashes := range before {
		for h, n := range hashes {
			if owner, ok := k.sel.Select(h); !ok || owner != id {
				k.draining.Set(id, h, n)
			}
		}
	}
}

// Released tells the dispatcher that id no longer holds one entry of hash
// h (acknowledged or given back for redelivery), while id stays attached.
func (k *KeyShared) Released(id ConsumerID, h int32) {
	if k.draining != nil {
		k.draining.Reduce(id, h)
	}
}

// LookAheadLimit returns the replay size at which reading new entries
// stops, for the attached consumers.
func (k *KeyShared) LookAheadLimit() int {
	perC, perS := k.cfg.LookAheadPerConsumer, k.cfg.LookAheadPerSubscription
	if perC == 0 {
		perC = DefaultLookAheadPerConsumer
	}
	if perS == 0 {
		perS = DefaultLookAheadPerSubscription
	}
	limit := perS
	if perC > 0 {
		limit = perC * len(k.members)
		if perS > 0 && perS < limit {
			limit = perS
		}
	}
	if limit <= 0 {
		return math.MaxInt
	}
	return limit
}

// NormalReadAllowed reports whether the dispatcher may read a new entry:
// the replay queue is below the look-ahead limit and some consumer has
// permits (Pulsar's isNormalReadAllowed).
func (k *KeyShared) NormalReadAllowed() bool {
	return k.replay.Len() < k.LookAheadLimit() && k.anyPermits()
}

// Draining returns the hashes draining at id, in hash order (none outside
// ordered AUTO_SPLIT mode).
func (k *KeyShared) Draining(id ConsumerID) []DrainingHash {
	if k.draining == nil {
		return nil
	}
	return k.draining.Of(id)
}
