package brokerstub

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// The end of a transaction: the coordinator's two phases, and the timeout
// that aborts an open transaction.

// armTimeout aborts m once d has passed on the broker's clock. Called with
// mu held (or before the coordinator is shared).
func (c *coordinator) armTimeout(m *txnMeta, d time.Duration) {
	id := txnID{Least: m.Least}
	m.stop = c.b.opts.Clock.AfterFunc(max(d, 0), func() {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		c.wg.Add(1)
		c.mu.Unlock()
		defer c.wg.Done()
		if err := c.end(id, txnByBroker, false); err != nil && !errors.Is(err, errTxnStatus) && !errors.Is(err, errTxnNotFound) {
			c.b.log.Warn("abort timed-out transaction", "txn", id, "err", err)
		}
	})
}

// end commits or aborts id for as in two phases: the decision (COMMITTING or
// ABORTING) is persisted first; then every partition writes its marker and
// every subscription applies or drops its pending acks; then the
// transaction is removed. An end of a transaction already deciding the same
// way is a retry and runs the second phase again (it is idempotent).
func (c *coordinator) end(id txnID, as txnAs, commit bool) error {
	want := txnAborting
	if commit {
		want = txnCommitting
	}
	c.mu.Lock()
	if id.Most >= tcCount {
		c.mu.Unlock()
		return fmt.Errorf("%w: %d", errTCNotFound, id.Most)
	}
	m := c.txns[id.Least]
	if m == nil {
		c.mu.Unlock()
		return fmt.Errorf("%w: %s", errTxnNotFound, id)
	}
	if err := c.checkOwnerLocked(m, as); err != nil {
		c.mu.Unlock()
		return err
	}
	switch {
	case m.Status == txnOpen:
		m.Status = want
		if m.stop != nil {
			m.stop()
			m.stop = nil
		}
		if err := c.persistLocked(); err != nil {
			m.Status = txnOpen
			c.mu.Unlock()
			return err
		}
	case m.Status != want:
		c.mu.Unlock()
		return fmt.Errorf("%w: %s is %s", errTxnStatus, id, m.Status)
	}
	parts, subs, acks := slices.Clone(m.Partitions), slices.Clone(m.Subs), slices.Clone(m.Acks)
	hook := c.beforePhaseTwo
	c.mu.Unlock()

	if hook != nil && !hook(id) {
		return fmt.Errorf("%w: stopped between the phases of %s", errTopicClosed, id)
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
func (c *coordinator) phaseTwo(id txnID, commit bool, parts []string, subs []txnSubRef, acks []txnAckRec) error {
	for _, p := range parts {
		err := c.onTopic(p, func(t *topic) { t.txnEnd(id, commit) })
		if err != nil {
			return err
		}
	}
	for _, s := range subs {
		var recs []txnAckRec
		for _, r := range acks {
			if r.Topic == s.Topic && r.Sub == s.Sub {
				recs = append(recs, r)
			}
		}
		err := c.onTopic(s.Topic, func(t *topic) { t.txnEndSub(s.Sub, id, commit, recs) })
		if err != nil {
			return err
		}
	}
	return nil
}

// onTopic runs f on the named topic's goroutine; a topic that does not
// exist (deleted, or never created) has nothing to end.
func (c *coordinator) onTopic(topic string, f func(*topic)) error {
	name, err := parseTopic(topic)
	if err != nil || c.b.partitionCountOf(name) > 0 {
		return nil // never a topic, or a partitioned one: nothing stored on it
	}
	t, err := c.b.getTopic(name, false)
	if errors.Is(err, errTopicNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return t.call(func() { f(t) })
}
