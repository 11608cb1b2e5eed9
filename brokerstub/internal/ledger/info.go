package ledger

// SegmentInfo describes one ledger of a topic that has entries.
type SegmentInfo struct {
	// ID is the ledger id.
	ID int64
	// Entries is the number of entries in the ledger.
	Entries int
	// Size is the bytes of metadata and payload the entries hold.
	Size int64
	// Timestamp is the broker timestamp of the ledger's last entry (Unix
	// ms): when a full ledger was closed, and what retention ages a ledger
	// by (see Trimmable).
	Timestamp int64
}

// Last returns the position of the ledger's last entry.
func (s SegmentInfo) Last() Position { return Position{Ledger: s.ID, Entry: int64(s.Entries) - 1} }

// Segments returns the ledgers that hold entries, in id order, for
// inspection (the admin API's internal stats).
func (l *Ledger) Segments() []SegmentInfo {
	out := make([]SegmentInfo, 0, len(l.segs))
	for _, s := range l.segs {
		out = append(out, s.info())
	}
	return out
}

func (s *segment) info() SegmentInfo {
	return SegmentInfo{ID: s.id, Entries: len(s.entries), Size: s.size,
		Timestamp: int64(s.entries[len(s.entries)-1].brokerTimestamp)}
}

// Size returns the bytes of metadata and payload of every entry.
func (l *Ledger) Size() int64 {
	var n int64
	for _, s := range l.segs {
		n += s.size
	}
	return n
}
