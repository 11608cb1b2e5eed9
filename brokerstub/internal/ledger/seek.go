package ledger

// FindByPublishTime returns where a cursor reset to time ts (Unix ms) must
// read from, by Pulsar's seek-by-time rule: find the newest entry whose
// publish time is < ts and return the position right after it; if no entry
// is older than ts, return the first position. Entries at or after the
// returned position are the ones to deliver.
//
// "Right after" the last entry is {its ledger, its entry id + 1}, which
// names no entry but is before anything appended later; with no entries
// at all the result is Earliest.
//
// Publish times come from producers and are not monotonic across them, so
// this is not a binary search (Pulsar's search assumes rough monotonicity).
// It scans back from the newest entry, which for a test broker's topic
// sizes is cheap and always exact: "newest" means the greatest position.
func (l *Ledger) FindByPublishTime(ts uint64) Position {
	return l.FindByTime(ts, func(e Entry) uint64 { return e.PublishTime })
}

// FindByTime is FindByPublishTime with the time of an entry given by timeOf,
// for example Entry.BrokerTimestamp to emulate a broker that stamps entries
// with broker entry metadata. timeOf is given entries without their
// payload (it reads no bytes back from the store).
func (l *Ledger) FindByTime(ts uint64, timeOf func(Entry) uint64) Position {
	for i := len(l.segs) - 1; i >= 0; i-- {
		entries := l.segs[i].entries
		for j := len(entries) - 1; j >= 0; j-- {
			if timeOf(entries[j].head()) < ts {
				p := entries[j].pos
				if next, ok := l.Next(p); ok {
					return next
				}
				return Position{Ledger: p.Ledger, Entry: p.Entry + 1}
			}
		}
	}
	if first, ok := l.First(); ok {
		return first
	}
	return Earliest
}
