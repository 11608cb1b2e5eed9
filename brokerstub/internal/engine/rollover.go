package engine

import (
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// Ledger rollover by time and size (internal/ledger/rollover.go): a topic
// starts a new ledger — a new ledger id in the message ids that follow —
// when the current one holds LedgerRolloverEntries entries
// (managedLedgerMaxEntriesPerLedger) or Lifecycle.LedgerMaxSize bytes, or is
// Lifecycle.LedgerMaxRolloverTime old, but not before it is
// Lifecycle.LedgerMinRolloverTime old; and, with
// Lifecycle.LedgerInactiveRolloverTime, when nothing was appended to it for
// that long. Fullness is checked after each append and, as Pulsar's
// scheduled rollCurrentLedgerIfFull, every LedgerMaxRolloverTime; inactivity
// every LedgerInactiveRolloverTime. A closed ledger can be trimmed by
// retention at once.

// rolloverOptions sets the rollover limits of a topic's ledger.
func (b *Engine) rolloverOptions(o *ledger.Options) {
	l := b.cfg.Lifecycle
	o.MaxSize = l.LedgerMaxSize
	o.MaxRolloverTime = l.LedgerMaxRolloverTime
	o.MinRolloverTime = l.LedgerMinRolloverTime
}

// armRollover starts the periodic rollover checks of a persistent topic.
// Topic goroutine.
func (t *Topic) armRollover() {
	if t.np != nil {
		return
	}
	l := t.b.cfg.Lifecycle
	var stops []func() bool
	if d := l.LedgerMaxRolloverTime; d > 0 {
		stops = append(stops, t.rollEvery(d, func(now time.Time) bool { return t.Led.RollIfFull(now) }))
	}
	if d := l.LedgerInactiveRolloverTime; d > 0 {
		stops = append(stops, t.rollEvery(d, func(now time.Time) bool { return t.Led.RollIfInactive(now, d) }))
	}
	t.life.stopRollover = func() bool {
		for _, stop := range stops {
			stop()
		}
		return true
	}
}

// rollEvery runs roll on the topic goroutine each d and trims when it closed
// the ledger; it returns what stops it. The stop it returns reads the
// current timer under the topic goroutine's ownership.
func (t *Topic) rollEvery(d time.Duration, roll func(now time.Time) bool) func() bool {
	var stop func() bool
	var arm func()
	arm = func() {
		stop = t.b.cfg.Clock.AfterFunc(d, func() {
			t.Do(func() {
				if t.life.stopRollover == nil {
					return // stopped
				}
				if roll(t.b.cfg.Clock.Now()) {
					t.trimLedgers() // retention.go
				}
				arm()
			})
		})
	}
	arm()
	return func() bool { return stop() }
}

// stop cancels the topic's rollover checks. Topic goroutine.
func (l *lifeState) stop() {
	if l.stopRollover != nil {
		l.stopRollover()
		l.stopRollover = nil
	}
}
