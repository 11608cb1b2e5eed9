package engine

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// The admin API's operations on a subscription: delete, reset, skip and
// the partition a message id names. Each runs on its topic's goroutine
// (Topic.Call).

// PositionOfID returns the ledger position of the message id d on the
// subscription's topic, ok false when d names another partition of a
// partitioned topic.
func (s *Subscription) PositionOfID(d ResetCursorData) (p ledger.Position, ok bool) {
	if d.PartitionIndex != nil && *d.PartitionIndex >= 0 && s.t.name.Partition >= 0 && *d.PartitionIndex != s.t.name.Partition {
		return p, false
	}
	return s.t.idPosition(d), true
}

// Delete removes the subscription and its stored cursor, disconnecting its
// consumers; without force, a subscription with consumers is refused (412).
func (s *Subscription) Delete(force bool) error {
	if len(s.Consumers) > 0 && !force {
		return RestErr(http.StatusPreconditionFailed, "Subscription has active connected consumers")
	}
	s.disconnectAll(false)
	delete(s.t.Subs, s.name)
	return s.t.b.st.DeleteCursor(s.t.name.Full, s.name)
}

// ResetCursorByTime rewinds (or moves on) the cursor to the first message
// published at or after ts (Unix ms).
func (s *Subscription) ResetCursorByTime(ts int64) {
	s.rewindTo(s.t.Led.FindByPublishTime(uint64(max(ts, 0))))
}

// ResetCursorToID rewinds (or moves on) the cursor to the message id d,
// unless d names another partition.
func (s *Subscription) ResetCursorToID(d ResetCursorData) {
	if p, ok := s.PositionOfID(d); ok {
		s.rewindTo(p)
	}
}

// SkipMessages acknowledges the next n unacknowledged entries of the
// backlog, persists the cursor and dispatches.
func (s *Subscription) SkipMessages(n int64) {
	p := s.Cur.MarkDelete()
	for range n {
		next, ok := s.Cur.NextUnacked(p)
		if !ok {
			break
		}
		s.ackEntry(next)
		p = next
	}
	s.persist(false)
	s.Dispatch()
}

// SkipAll acknowledges the whole backlog (clear-backlog).
func (s *Subscription) SkipAll() {
	if last, ok := s.t.Led.Last(); ok {
		s.AckThrough(last)
	}
}
