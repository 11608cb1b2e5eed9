package txn

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// The end of a transaction: the coordinator's two phases, and the timeout
// that aborts an open transaction.

// armTimeout aborts m once d has passed on the coordinator's clock. Called
// with mu held (or before the coordinator is shared).
func (c *Coordinator) armTimeout(m *Record, d time.Duration) {
	id := m.ID()
	m.stop = c.cfg.Clock.AfterFunc(max(d, 0), func() {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		c.wg.Add(1)
		c.mu.Unlock()
		defer c.wg.Done()
		if err := c.End(id, ByBroker, false); err != nil && !errors.Is(err, ErrStatus) && !errors.Is(err, ErrNotFound) {
			c.cfg.Log.Warn("abort timed-out transaction", "txn", id, "err", err)
		}
	})
}

// End commits or aborts id for as in two phases: the decision (COMMITTING
// or ABORTING) is persisted first; then every partition writes its marker
// and every subscription applies or drops its pending acks (Topics); then
// the transaction is removed. An end of a transaction already deciding
// the same way is a retry and runs the second phase again (it is
// idempotent).
func (c *Coordinator) End(id ID, as Caller, commit bool) error {
	want := Aborting
	if commit {
		want = Committing
	}
	c.mu.Lock()
	m, err := c.findLocked(id, as)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	switch {
	case m.Status == Open:
		m.Status = want
		if m.stop != nil {
			m.stop()
			m.stop = nil
		}
		if err := c.persistLocked(); err != nil {
			m.Status = Open
			c.mu.Unlock()
			return err
		}
	case m.Status != want:
		c.mu.Unlock()
		return fmt.Errorf("%w: %s is %s", ErrStatus, id, m.Status)
	}
	parts, subs, acks := slices.Clone(m.Partitions), slices.Clone(m.Subs), slices.Clone(m.Acks)
	hook := c.beforePhaseTwo
	c.mu.Unlock()

	if hook != nil && !hook(id) {
		return fmt.Errorf("%w: stopped between the phases of %s", ErrClosed, id)
	}
	if err := c.phaseTwo(id, commit, parts, subs, acks); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.txns[id.Least] == m {
		delete(c.txns, id.Least)
		return c.persistLocked()
	}
	return nil
}

// phaseTwo tells every partition and subscription of id the outcome.
func (c *Coordinator) phaseTwo(id ID, commit bool, parts []string, subs []Sub, acks []Ack) error {
	for _, p := range parts {
		if err := c.cfg.Topics.EndOnPartition(p, id, commit); err != nil {
			return err
		}
	}
	for _, s := range subs {
		var recs []Ack
		for _, r := range acks {
			if r.Topic == s.Topic && r.Sub == s.Sub {
				recs = append(recs, r)
			}
		}
		if err := c.cfg.Topics.EndOnSubscription(s.Topic, s.Sub, id, commit, recs); err != nil {
			return err
		}
	}
	return nil
}
