package ledger

// SegmentInfo describes one ledger of a topic that has entries.
type SegmentInfo struct {
	// ID is the ledger id.
	ID int64
	// Entries is the number of entries in the ledger.
	Entries int
	// Size is the bytes of metadata and payload the entries hold.
	Size int64
}

// Segments returns the ledgers that hold entries, in id order, for
// inspection (the admin API's internal stats). It costs one pass over the
// entries.
func (l *Ledger) Segments() []SegmentInfo {
	out := make([]SegmentInfo, 0, len(l.segs))
	for _, s := range l.segs {
		info := SegmentInfo{ID: s.id, Entries: len(s.entries)}
		for _, e := range s.entries {
			info.Size += int64(len(e.Meta) + len(e.Payload))
		}
		out = append(out, info)
	}
	return out
}
