package ledger

import "slices"

// search returns the index of the first segment whose id is >= ledger,
// and whether its id is ledger.
func (l *Ledger) search(ledger int64) (int, bool) {
	return slices.BinarySearchFunc(l.segs, ledger, func(s segment, id int64) int {
		switch {
		case s.id < id:
			return -1
		case s.id > id:
			return 1
		}
		return 0
	})
}

// Get returns the entry at p, and whether there is one. Positions that do
// not name an entry (Earliest, Latest, a negative entry id, an id past the
// end of its ledger, a ledger without entries) give false. An entry whose
// payload was dropped from memory (cache.go) is read back from the store:
// one store read, or none when the same entry was the last read back.
func (l *Ledger) Get(p Position) (Entry, bool) {
	i, ok := l.search(p.Ledger)
	if !ok || p.Entry < 0 || p.Entry >= int64(len(l.segs[i].entries)) {
		return Entry{}, false
	}
	return l.entry(&l.segs[i].entries[p.Entry])
}

// entry returns the entry of it with its payload: from its slab, else read
// back from the store. An entry the store fails to give back (it is
// closed or broken) is reported missing, as a broker fails a read.
func (l *Ledger) entry(it *item) (Entry, bool) {
	e := it.head()
	switch {
	case it.sl == nil:
		e.Payload = []byte{}
		return e, true
	case l.memo.payload != nil && l.memo.pos == it.pos:
		e.Payload = l.memo.payload
		return e, true
	}
	if b := it.sl.buf(); b != nil {
		e.Payload = b[it.off : it.off+it.n : it.off+it.n]
		return e, true
	}
	if l.reader == nil {
		return Entry{}, false // dropped with its ledger (not reachable)
	}
	se, ok, err := l.reader.ReadEntry(l.topic, it.pos.Ledger, it.pos.Entry)
	if err != nil || !ok || len(se.Payload) != it.n {
		return Entry{}, false
	}
	l.slabs.cache.readBacks.Add(1)
	l.memo.pos, l.memo.payload = it.pos, se.Payload
	e.Payload = se.Payload
	return e, true
}

// First returns the position of the first entry, and false if there are
// no entries.
func (l *Ledger) First() (Position, bool) {
	if len(l.segs) == 0 {
		return Position{}, false
	}
	return l.segs[0].entries[0].pos, true
}

// Last returns the position of the last entry, and false if there are no
// entries.
func (l *Ledger) Last() (Position, bool) {
	if len(l.segs) == 0 {
		return Position{}, false
	}
	entries := l.segs[len(l.segs)-1].entries
	return entries[len(entries)-1].pos, true
}

// Next returns the position of the first entry strictly after p, and false
// if there is none. p need not name an entry: {L, -1} means "before entry 0
// of ledger L" and Earliest means "before everything". Next crosses ledger
// boundaries and steps over ledgers without entries.
func (l *Ledger) Next(p Position) (Position, bool) {
	i, ok := l.search(p.Ledger)
	if ok {
		if p.Entry < int64(len(l.segs[i].entries))-1 {
			return Position{Ledger: p.Ledger, Entry: max(p.Entry+1, 0)}, true
		}
		i++
	}
	if i < len(l.segs) {
		return l.segs[i].entries[0].pos, true
	}
	return Position{}, false
}

// Prev returns the position of the last entry strictly before p, and false
// if there is none. Like Next, it accepts any p (for example Latest) and
// steps over ledgers without entries.
func (l *Ledger) Prev(p Position) (Position, bool) {
	i, ok := l.search(p.Ledger)
	if ok && p.Entry > 0 {
		last := int64(len(l.segs[i].entries)) - 1
		return Position{Ledger: p.Ledger, Entry: min(p.Entry-1, last)}, true
	}
	if i == 0 {
		return Position{}, false
	}
	entries := l.segs[i-1].entries
	return entries[len(entries)-1].pos, true
}

// Scan calls fn for every entry at or after from, in position order, until
// fn returns false. from need not name an entry. fn must not call Append.
func (l *Ledger) Scan(from Position, fn func(Entry) bool) {
	i, ok := l.search(from.Ledger)
	start := int64(0)
	if ok && from.Entry > 0 {
		start = from.Entry
		if start >= int64(len(l.segs[i].entries)) {
			i, start = i+1, 0
		}
	}
	for ; i < len(l.segs); i++ {
		for j := range l.segs[i].entries[start:] {
			e, ok := l.entry(&l.segs[i].entries[start+int64(j)])
			if ok && !fn(e) {
				return
			}
		}
		start = 0
	}
}
