package ledger

import "time"

// Ledger rollover, as Pulsar's ManagedLedgerImpl.currentLedgerIsFull: after
// each append the current ledger is closed (the next append starts a new
// one) when it holds Options.RolloverEntries entries or Options.MaxSize
// bytes, or is Options.MaxRolloverTime old, unless it is not yet
// Options.MinRolloverTime old. RollIfFull and RollIfInactive are the
// periodic checks of its rollCurrentLedgerIfFull and
// checkInactiveLedgerAndRollOver.

// committed makes it, just given its position, the last entry of the
// current ledger, and closes the ledger if that made it full.
func (l *Ledger) committed(it item) {
	if it.pos.Ledger != l.cur || it.pos.Entry == 0 {
		l.curSize = 0
		if it.pos.Ledger != l.cur {
			l.curSince = l.opts.Now()
		}
	}
	l.cur, l.curLen, l.roll = it.pos.Ledger, int(it.pos.Entry)+1, false
	l.curSize += int64(len(it.meta) + it.n)
	l.lastAdd = l.opts.Now()
	l.roll = l.full(l.lastAdd)
}

// full is currentLedgerIsFull at now.
func (l *Ledger) full(now time.Time) bool {
	o := &l.opts
	age := now.Sub(l.curSince)
	if l.curLen < o.RolloverEntries && (o.MaxSize <= 0 || l.curSize < o.MaxSize) &&
		(o.MaxRolloverTime <= 0 || age < o.MaxRolloverTime) {
		return false
	}
	return o.MinRolloverTime <= 0 || age > o.MinRolloverTime
}

// RollIfFull closes the current ledger if it has entries and is full at
// now, and reports whether it did: the next append starts a new ledger and
// the closed one may be trimmed.
func (l *Ledger) RollIfFull(now time.Time) bool {
	if l.roll || l.curLen == 0 || !l.full(now) {
		return false
	}
	l.roll = true
	return true
}

// RollIfInactive closes the current ledger if it has entries and nothing
// was appended to it for longer than d (Pulsar's
// managedLedgerInactiveLedgerRolloverTimeSeconds), and reports whether it
// did.
func (l *Ledger) RollIfInactive(now time.Time, d time.Duration) bool {
	if d <= 0 || l.roll || l.curLen == 0 || now.Sub(l.lastAdd) <= d {
		return false
	}
	l.roll = true
	return true
}

// Closed reports whether the current ledger takes no more entries: the
// next append starts a new ledger.
func (l *Ledger) Closed() bool { return l.roll }
