package keyorder

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ID identifies a message of a topic partition: ledger id, entry id and
// batch index. Use one convention for the batch index of messages that are
// not in a batch (Pulsar's clients use -1) throughout a log.
type ID struct {
	Ledger int64
	Entry  int64
	Batch  int32
}

// Compare returns -1, 0 or +1 as a is before, equal to or after b, ordered
// by ledger, entry, batch index.
func (a ID) Compare(b ID) int {
	switch {
	case a.Ledger != b.Ledger:
		return cmp(a.Ledger, b.Ledger)
	case a.Entry != b.Entry:
		return cmp(a.Entry, b.Entry)
	}
	return cmp(a.Batch, b.Batch)
}

func cmp[T int32 | int64](a, b T) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// String returns "ledger:entry:batch".
func (a ID) String() string { return fmt.Sprintf("%d:%d:%d", a.Ledger, a.Entry, a.Batch) }

// Kind is what happened to a message at a consumer.
type Kind uint8

const (
	// Received: the consumer got the message (for the first time or again).
	Received Kind = iota + 1
	// Acked: the consumer acknowledged the message.
	Acked
	// Released: the consumer gave the message back without acknowledging
	// it (negative ack, ack timeout, redeliver-unacknowledged).
	Released
	// Left: the consumer closed, crashed or was disconnected; it holds
	// nothing from now on. Key and ID are ignored.
	Left
)

// String returns the kind's name in lower case.
func (k Kind) String() string {
	switch k {
	case Received:
		return "received"
	case Acked:
		return "acked"
	case Released:
		return "released"
	case Left:
		return "left"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Event is one entry of a consumers' log.
type Event struct {
	Kind Kind
	// Consumer names the consumer instance.
	Consumer string
	// Key is the message's routing key (Received; optional otherwise).
	Key string
	// ID is the message's id (all kinds but Left).
	ID ID
	// Delayed marks a Received message that was sent with a delivery time
	// (deliver_at_time: DeliverAfter, DeliverAt). Pulsar delivers such a
	// message when it falls due, not in key order, and does not hold newer
	// messages of its key behind it; so its first delivery is exempt from
	// rule (a) and does not move the key's order mark. Rules (b) and (c)
	// apply to it as to any message. Default false.
	Delayed bool
}

// String renders the event for violation reports.
func (e Event) String() string {
	if e.Kind == Left {
		return e.Consumer + " left"
	}
	return fmt.Sprintf("%s %s %s key=%q", e.Consumer, e.Kind, e.ID, e.Key)
}

// Rule names one of the three guarantees.
type Rule uint8

const (
	// FirstDeliveryOrder is rule (a): first deliveries of a key increase.
	FirstDeliveryOrder Rule = iota + 1
	// RedeliveryFirst is rule (b): what a leaving consumer held of a key
	// comes before anything newer of that key.
	RedeliveryFirst
	// OneConsumerPerKey is rule (c): a key is pending at one consumer at a
	// time.
	OneConsumerPerKey
)

// String returns "(a) ...", "(b) ..." or "(c) ...".
func (r Rule) String() string {
	switch r {
	case FirstDeliveryOrder:
		return "(a) first deliveries of a key strictly increase"
	case RedeliveryFirst:
		return "(b) a departed consumer's pending messages come before newer ones of their key"
	case OneConsumerPerKey:
		return "(c) a key is pending at one consumer at a time"
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// historyLen is how many earlier events of the key a Violation shows.
const historyLen = 16

// Violation is the first event that broke a rule, with context.
type Violation struct {
	// Rule is the rule broken.
	Rule Rule
	// Index is the event's index in the log (0-based).
	Index int
	// Event is the offending event.
	Event Event
	// Detail says what the event conflicts with.
	Detail string
	// History holds the events of the same key before it (up to 16, oldest
	// first), with their indexes.
	History []IndexedEvent
}

// IndexedEvent is an event with its index in the log.
type IndexedEvent struct {
	Index int
	Event Event
}

// Error renders the violation with its history.
func (v *Violation) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "keyorder: rule %s broken by event #%d (%s): %s", v.Rule, v.Index, v.Event, v.Detail)
	if len(v.History) > 0 {
		fmt.Fprintf(&b, "\nearlier events of key %q:", v.Event.Key)
		for _, h := range v.History {
			fmt.Fprintf(&b, "\n  #%d %s", h.Index, h.Event)
		}
	}
	return b.String()
}

// Checker records a log of consumer events and checks each against the
// rules as it arrives. The zero value is ready to use; a Checker is safe for
// concurrent use.
type Checker struct {
	mu        sync.Mutex
	events    []Event
	first     *Violation
	keys      map[string]*keyState
	consumers map[string]map[ID]string // consumer -> pending id -> key
	seen      map[ID]string            // ids delivered at least once -> key
}

type keyState struct {
	last    ID   // greatest first-delivered id
	hasLast bool // whether last is set
	owed    []ID // held by departed consumers, not delivered since; sorted
	holders map[string]int
	history []int // indexes of recent events of the key
}

// Check runs a Checker over events and returns the first violation (a
// *Violation), or nil.
func Check(events []Event) error {
	var c Checker
	for _, e := range events {
		c.Add(e)
	}
	return c.Err()
}

// Received records that consumer got message id of key; it returns the
// violation this event causes, if any.
func (c *Checker) Received(consumer, key string, id ID) error {
	return c.Add(Event{Kind: Received, Consumer: consumer, Key: key, ID: id})
}

// ReceivedDelayed records that consumer got message id of key, a message
// sent with a delivery time (see Event.Delayed).
func (c *Checker) ReceivedDelayed(consumer, key string, id ID) error {
	return c.Add(Event{Kind: Received, Consumer: consumer, Key: key, ID: id, Delayed: true})
}

// Acked records that consumer acknowledged id.
func (c *Checker) Acked(consumer string, id ID) error {
	return c.Add(Event{Kind: Acked, Consumer: consumer, ID: id})
}

// Released records that consumer gave id back without acknowledging it.
func (c *Checker) Released(consumer string, id ID) error {
	return c.Add(Event{Kind: Released, Consumer: consumer, ID: id})
}

// Left records that consumer is gone, with everything it held.
func (c *Checker) Left(consumer string) error {
	return c.Add(Event{Kind: Left, Consumer: consumer})
}

// Err returns the first violation recorded (a *Violation), or nil.
func (c *Checker) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		return nil
	}
	return c.first
}

// Events returns a copy of the log.
func (c *Checker) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

// Add records e and returns the violation it causes (a *Violation), or nil.
// Later events are still recorded and checked after a violation; Err keeps
// the first.
func (c *Checker) Add(e Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		c.keys = map[string]*keyState{}
		c.consumers = map[string]map[ID]string{}
		c.seen = map[ID]string{}
	}
	idx := len(c.events)
	c.events = append(c.events, e)
	var v *Violation
	switch e.Kind {
	case Received:
		v = c.received(idx, e)
	case Acked, Released:
		c.drop(idx, e)
	case Left:
		c.left(idx, e)
	}
	if v == nil {
		return nil
	}
	if c.first == nil {
		c.first = v
	}
	return v
}

func (c *Checker) key(k string) *keyState {
	ks := c.keys[k]
	if ks == nil {
		ks = &keyState{holders: map[string]int{}}
		c.keys[k] = ks
	}
	return ks
}

func (c *Checker) remember(ks *keyState, idx int) {
	if n := len(ks.history); n > 0 && ks.history[n-1] == idx {
		return
	}
	if len(ks.history) == historyLen {
		ks.history = slices.Delete(ks.history, 0, 1)
	}
	ks.history = append(ks.history, idx)
}

func (c *Checker) violation(r Rule, idx int, e Event, ks *keyState, format string, args ...any) *Violation {
	v := &Violation{Rule: r, Index: idx, Event: e, Detail: fmt.Sprintf(format, args...)}
	for _, i := range ks.history {
		v.History = append(v.History, IndexedEvent{Index: i, Event: c.events[i]})
	}
	return v
}

func (c *Checker) received(idx int, e Event) *Violation {
	ks := c.key(e.Key)
	defer c.remember(ks, idx)
	var v *Violation
	// (c) nobody else may hold the key.
	for other, n := range ks.holders {
		if other != e.Consumer && n > 0 && v == nil {
			v = c.violation(OneConsumerPerKey, idx, e, ks, "key %q is pending at %s (%d messages: %s)",
				e.Key, other, n, c.pendingOf(other, e.Key))
		}
	}
	// (b) what departed consumers held comes first.
	if i, found := slices.BinarySearchFunc(ks.owed, e.ID, ID.Compare); found {
		ks.owed = slices.Delete(ks.owed, i, i+1)
	} else if len(ks.owed) > 0 && ks.owed[0].Compare(e.ID) < 0 && v == nil {
		v = c.violation(RedeliveryFirst, idx, e, ks, "%s, held by a consumer that left, has not been redelivered yet", ks.owed[0])
	}
	// (a) first deliveries increase; a delayed message is outside the order.
	if _, dup := c.seen[e.ID]; !dup {
		c.seen[e.ID] = e.Key
		if !e.Delayed && ks.hasLast && e.ID.Compare(ks.last) <= 0 && v == nil {
			v = c.violation(FirstDeliveryOrder, idx, e, ks, "first delivery of %s after the first delivery of %s", e.ID, ks.last)
		}
		if !e.Delayed && (!ks.hasLast || e.ID.Compare(ks.last) > 0) {
			ks.last, ks.hasLast = e.ID, true
		}
	}
	p := c.consumers[e.Consumer]
	if p == nil {
		p = map[ID]string{}
		c.consumers[e.Consumer] = p
	}
	if _, held := p[e.ID]; !held {
		p[e.ID] = e.Key
		ks.holders[e.Consumer]++
	}
	return v
}

// pendingOf lists what consumer holds of key, for reports.
func (c *Checker) pendingOf(consumer, key string) string {
	var ids []ID
	for id, k := range c.consumers[consumer] {
		if k == key {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, ID.Compare)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.String()
	}
	return strings.Join(parts, " ")
}

func (c *Checker) drop(idx int, e Event) {
	key, held := c.consumers[e.Consumer][e.ID]
	if !held {
		var seen bool
		if key, seen = c.seen[e.ID]; !seen {
			return // a message never received: nothing to update
		}
	}
	ks := c.key(key)
	c.remember(ks, idx)
	if held {
		delete(c.consumers[e.Consumer], e.ID)
		if ks.holders[e.Consumer]--; ks.holders[e.Consumer] <= 0 {
			delete(ks.holders, e.Consumer)
		}
	}
	if e.Kind == Acked {
		// An acknowledged message will not come again: nothing waits for it.
		if i, found := slices.BinarySearchFunc(ks.owed, e.ID, ID.Compare); found {
			ks.owed = slices.Delete(ks.owed, i, i+1)
		}
	}
}

func (c *Checker) left(idx int, e Event) {
	for id, key := range c.consumers[e.Consumer] {
		ks := c.key(key)
		if i, found := slices.BinarySearchFunc(ks.owed, id, ID.Compare); !found {
			ks.owed = slices.Insert(ks.owed, i, id)
		}
		delete(ks.holders, e.Consumer)
		c.remember(ks, idx)
	}
	delete(c.consumers, e.Consumer)
}
