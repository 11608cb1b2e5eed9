package brokerstub

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/cursor"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Position is the place of an entry in a topic: ledger id and entry id.
type Position struct {
	Ledger int64
	Entry  int64
}

// CursorState is a snapshot of a subscription's acknowledgment state.
type CursorState struct {
	// MarkDelete is the position up to which everything is acknowledged.
	MarkDelete Position
	// Ranges are the acknowledged ranges after MarkDelete, each [first, last]
	// inclusive.
	Ranges [][2]Position
	// BatchAcks holds, for batch entries acknowledged in part, Pulsar's
	// ack_set bitmap: a set bit is a message NOT yet acknowledged.
	BatchAcks map[Position][]int64
}

func pos(p ledger.Position) Position { return Position{Ledger: p.Ledger, Entry: p.Entry} }

func stateOf(s cursor.State) CursorState {
	out := CursorState{MarkDelete: pos(s.MarkDelete)}
	for _, r := range s.Ranges {
		out.Ranges = append(out.Ranges, [2]Position{pos(r[0]), pos(r[1])})
	}
	if len(s.Bitmaps) > 0 {
		out.BatchAcks = make(map[Position][]int64, len(s.Bitmaps))
		for p, w := range s.Bitmaps {
			out.BatchAcks[pos(p)] = w
		}
	}
	return out
}

// Cursor returns the acknowledgment state of a subscription: current is
// what the broker holds in memory, persisted is what it last flushed to its
// store — what a Crash would come back with.
func (b *Broker) Cursor(topic, subscription string) (current, persisted CursorState, err error) {
	name, err := engine.ParseTopic(topic)
	if err != nil {
		return current, persisted, err
	}
	t, err := b.eng.GetTopic(name, false)
	if err != nil {
		return current, persisted, err
	}
	found := false
	callErr := t.Call(func() {
		s := t.Subs[subscription]
		if s == nil {
			return
		}
		found = true
		current, persisted = stateOf(s.Cur.Current()), stateOf(s.Cur.Persisted())
	})
	if callErr != nil {
		return current, persisted, callErr
	}
	if !found {
		return current, persisted, fmt.Errorf("%w: %s on %s", ErrNoSubscription, subscription, name.Full)
	}
	return current, persisted, nil
}
