package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/delayed"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// This file holds delayed delivery (deliver_at_time) as Pulsar's
// PersistentDispatcherMultipleConsumers does it: on Shared and Key_Shared
// subscriptions an entry read for the first time with a delivery time
// beyond the cutoff (now + tick, or now when strict) goes to the
// subscription's tracker instead of a consumer, without taking permits and
// without holding back later entries — of its key either, on Key_Shared.
// When entries fall due they join the replay queue (as Pulsar's
// getMessagesToReplayNow adds them to redeliveryMessages), so they go
// before newer entries and, on Key_Shared, obey the selector, the permits
// and the draining hashes like any replayed entry. A timer on the broker's
// clock wakes the dispatcher at the next delivery time, no sooner than one
// tick after the previous wake-up; nothing polls.

// delayedState is a subscription's tracker and its wake-up timer. Owned by
// the topic goroutine.
type delayedState struct {
	tr       *delayed.Tracker
	stop     func() bool // cancels the armed timer; nil when none
	target   int64       // delivery time the timer is armed for (Unix ms)
	gen      uint64      // bumped on every arm, so a stale timer does nothing
	lastTick int64       // when the timer last fired (Unix ms)
}

func (s *Subscription) nowMillis() int64 { return s.t.b.cfg.Clock.Now().UnixMilli() }

// delayedDeliveryPolicy is Pulsar's DelayedDeliveryPolicies JSON, the
// delayedDelivery policy of a namespace (delayed_delivery_policies) or a
// topic; times in milliseconds.
type delayedDeliveryPolicy struct {
	Active   bool    `json:"active"`
	TickTime float64 `json:"tickTime"`
	MaxDelay int64   `json:"maxDeliveryDelayInMillis"`
}

// delaySettings are a topic's delayed delivery settings in effect.
type delaySettings struct {
	active   bool
	tick     time.Duration
	maxDelay time.Duration // 0: no limit
}

// delayedDelivery returns a topic's delayed delivery settings: its
// delayedDelivery policy, else its namespace's, else the broker's
// (Options.DisableDelayedDelivery, DelayedDeliveryTickTime and
// DelayedDeliveryMaxDelay). A policy's tick time of 0 keeps the broker's.
func (b *Engine) delayedDelivery(name TopicName) delaySettings {
	d := delaySettings{active: !b.cfg.DisableDelayedDelivery, tick: b.cfg.DelayedDeliveryTickTime, maxDelay: b.cfg.DelayedDeliveryMaxDelay}
	if raw, ok := b.appliedPolicy(name, "delayedDelivery"); ok {
		var p delayedDeliveryPolicy
		if json.Unmarshal(raw, &p) == nil {
			d.active = p.Active
			if p.TickTime >= 1 && p.TickTime <= float64(math.MaxInt64/int64(time.Millisecond)) {
				d.tick = time.Duration(p.TickTime) * time.Millisecond
			}
			d.maxDelay = time.Duration(min(max(p.MaxDelay, 0), math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
		}
	}
	return d
}

// exceedsMaxDelay returns why a message is refused — its deliver_at_time is
// further after its publish time than the topic's maximum delivery delay,
// as Pulsar's isExceedMaximumDeliveryDelay — or "". Topic goroutine.
func (t *Topic) exceedsMaxDelay(md *proto.MessageMetadata) string {
	if md.DeliverAtTime == nil {
		return ""
	}
	d := t.b.delayedDelivery(t.name)
	if !d.active || d.maxDelay <= 0 || md.GetDeliverAtTime()-int64(md.GetPublishTime()) <= d.maxDelay.Milliseconds() {
		return ""
	}
	return fmt.Sprintf("Exceeds max allowed delivery delay of %d milliseconds", d.maxDelay.Milliseconds())
}

// CheckDelayedDelivery validates a delayedDelivery policy body; it returns
// the reason it is refused, or "".
func CheckDelayedDelivery(v json.RawMessage) string {
	var p struct {
		Active   *bool    `json:"active"`
		TickTime *float64 `json:"tickTime"`
		MaxDelay *int64   `json:"maxDeliveryDelayInMillis"`
	}
	if json.Unmarshal(v, &p) != nil {
		return "Invalid delayed delivery policy"
	}
	if p.TickTime != nil && *p.TickTime < 0 {
		return "Invalid delayed delivery policy: tickTime must be >= 0"
	}
	if p.MaxDelay != nil && *p.MaxDelay < 0 {
		return "Invalid delayed delivery policy: maxDeliveryDelayInMillis must be >= 0"
	}
	return ""
}

// delayApplies reports whether the subscription holds delayed entries:
// delayed delivery is on for the topic and the subscription is Shared or
// Key_Shared (Exclusive and Failover deliver at once, as Pulsar's
// single-active dispatchers do).
func (s *Subscription) delayApplies() bool {
	if s.typ != proto.CommandSubscribe_Shared && s.typ != proto.CommandSubscribe_Key_Shared {
		return false
	}
	return s.t.b.delayedDelivery(s.t.name).active
}

// delayTick is the tick of the topic's delayed delivery.
func (s *Subscription) delayTick() time.Duration { return s.t.b.delayedDelivery(s.t.name).tick }

// holdDelayed is asked for every entry read for the first time: it reports
// whether the entry is held for later delivery, and arms the timer.
func (s *Subscription) holdDelayed(p ledger.Position, in *entryInfo) bool {
	if in.deliverAt <= 0 || !s.delayApplies() {
		return false
	}
	if s.delayed == nil {
		s.delayed = &delayedState{tr: delayed.New(s.delayTick().Milliseconds(), s.t.b.cfg.DelayedDeliveryStrict)}
	}
	if !s.delayed.tr.Add(p, in.deliverAt, s.nowMillis()) {
		return false
	}
	s.armDelayed()
	return true
}

// releaseDue moves the held entries whose time has come — all of them when
// the subscription no longer delays (its type changed, or a policy switched
// delayed delivery off) — to the replay
// queue, with their sticky key hash on Key_Shared, and re-arms the timer.
func (s *Subscription) releaseDue() {
	d := s.delayed
	if d == nil || d.tr.Len() == 0 {
		return
	}
	var due []ledger.Position
	if s.delayApplies() {
		due = d.tr.Due(s.nowMillis())
	} else {
		due = d.tr.All()
		d.tr.Clear()
	}
	for _, p := range due {
		if s.Cur.IsAcked(p) {
			continue
		}
		var hash int32
		if s.ks != nil {
			if e, ok := s.t.Led.Get(p); ok {
				hash = s.ksEntry(s.t.info(e)).Hash
			}
		}
		s.replay.Add(p, hash)
	}
	s.armDelayed()
}

// armDelayed sets the timer for the earliest held delivery time, as
// Pulsar's updateTimer: not before one tick after the last wake-up, and
// not again when it is already set for that time.
func (s *Subscription) armDelayed() {
	d := s.delayed
	next, ok := d.tr.Next()
	if !ok {
		d.cancel()
		return
	}
	if d.stop != nil && d.target == next {
		return
	}
	d.cancel()
	now := s.nowMillis()
	wait := next - now
	if rem := d.lastTick + s.delayTick().Milliseconds() - now; rem > wait {
		wait = rem
	}
	wait = max(wait, 0)
	d.gen++
	gen, t := d.gen, s.t
	d.target = next
	d.stop = t.b.cfg.Clock.AfterFunc(time.Duration(wait)*time.Millisecond, func() {
		t.Do(func() {
			if d.gen != gen || d.stop == nil {
				return
			}
			d.stop, d.target = nil, 0
			d.lastTick = s.nowMillis()
			if t.Subs[s.name] == s {
				s.Dispatch()
			}
		})
	})
}

func (d *delayedState) cancel() {
	if d.stop != nil {
		d.stop()
		d.stop = nil
	}
	d.target = 0
	d.gen++
}

// clearDelayed forgets the held entries: the subscription reads again from
// its mark-delete position and holds them again as it meets them.
func (s *Subscription) clearDelayed() {
	if s.delayed != nil {
		s.delayed.tr.Clear()
		s.delayed.cancel()
	}
}

// delayedPositions returns the positions held, in order (for inspection).
func (s *Subscription) delayedPositions() []ledger.Position {
	if s.delayed == nil {
		return nil
	}
	return s.delayed.tr.All()
}

// DelayedPositionsOf is Broker.Delayed.
func (b *Engine) DelayedPositionsOf(topic, subscription string) ([]ledger.Position, error) {
	name, err := ParseTopic(topic)
	if err != nil {
		return nil, err
	}
	t, err := b.GetTopic(name, false)
	if err != nil {
		return nil, err
	}
	var out []ledger.Position
	found := false
	if err := t.Call(func() {
		s := t.Subs[subscription]
		if s == nil {
			return
		}
		found = true
		out = s.delayedPositions()
	}); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: %s on %s", ErrNoSubscription, subscription, name.Full)
	}
	return out, nil
}
