package ledger

import (
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// Ledger is the entry log of one topic: every entry appended, in order,
// persisted through a store.Store and kept in memory for reads. It is not
// safe for concurrent use: the goroutine that owns the topic owns its Ledger.
type Ledger struct {
	st    store.Store
	topic string
	opts  Options

	// segs holds the ledgers that have entries, in id order. Ledgers
	// without entries are not kept.
	segs []segment
	n    int // total number of entries

	// cur is the ledger that receives appends; curLen is how many entries
	// it has. roll forces the next Append to start a new ledger.
	cur    int64
	curLen int
	roll   bool

	// slabs holds the bytes of appended entries (arena.go).
	slabs arena
}

// segment is one ledger with at least one entry; entries[i].Pos.Entry == i.
// size is the bytes of metadata and payload its entries hold.
type segment struct {
	id      int64
	entries []Entry
	size    int64
}

// Open loads the entry log of topic from st, replaying every stored entry,
// and starts a new ledger for appends whose id (from st.NewLedgerID) is
// greater than every ledger id the topic used before. The zero Options give
// the defaults. Open fails if the store fails or if the stored entries are
// not in order with gapless entry ids (store.ErrCorrupt).
func Open(st store.Store, topic string, opts Options) (*Ledger, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	l := &Ledger{st: st, topic: topic, opts: opts}
	if err := st.Entries(topic, l.replay); err != nil {
		return nil, fmt.Errorf("ledger: topic %q: replay: %w", topic, err)
	}
	id, err := l.newLedgerID()
	if err != nil {
		return nil, err
	}
	l.cur = id
	return l, nil
}

// replay adds one stored entry during Open, checking that it follows the
// entries before it.
func (l *Ledger) replay(se store.StoredEntry) error {
	pos := Position{Ledger: se.Ledger, Entry: se.Entry}
	if last, ok := l.Last(); ok {
		next := Position{Ledger: last.Ledger, Entry: last.Entry + 1}
		if pos != next && (pos.Ledger <= last.Ledger || pos.Entry != 0) {
			return fmt.Errorf("%w: entry %s after %s", store.ErrCorrupt, pos, last)
		}
	} else if pos.Entry != 0 {
		return fmt.Errorf("%w: first entry at %s", store.ErrCorrupt, pos)
	}
	l.add(Entry{
		Pos:             pos,
		Meta:            se.Meta,
		Payload:         se.Payload,
		PublishTime:     se.PublishTime,
		BrokerTimestamp: se.BrokerTimestamp,
		NumMessages:     se.NumMessages,
	})
	return nil
}

// add appends e in memory; e.Pos is either the next entry of the last
// segment or entry 0 of a later ledger.
func (l *Ledger) add(e Entry) {
	k := len(l.segs)
	if k == 0 || l.segs[k-1].id != e.Pos.Ledger {
		l.segs = append(l.segs, segment{id: e.Pos.Ledger})
		k++
	}
	l.segs[k-1].entries = append(l.segs[k-1].entries, e)
	l.segs[k-1].size += int64(len(e.Meta) + len(e.Payload))
	l.n++
}

// newLedgerID gets a new ledger id from the store and checks that it is
// after every entry.
func (l *Ledger) newLedgerID() (int64, error) {
	id, err := l.st.NewLedgerID(l.topic)
	if err != nil {
		return 0, fmt.Errorf("ledger: topic %q: new ledger: %w", l.topic, err)
	}
	if last, ok := l.Last(); (ok && id <= last.Ledger) || id < 0 {
		return 0, fmt.Errorf("ledger: topic %q: store gave ledger id %d, not after %s", l.topic, id, last)
	}
	return id, nil
}

// Append stores an entry durably and returns its position. It starts a new
// ledger first when the current one holds Options.RolloverEntries entries.
// publishTime is the metadata's publish_time (ms) and numMessages the number
// of messages in the entry; the broker timestamp comes from Options.Now. The
// Ledger keeps a copy of meta and payload (arena.go): the caller may reuse
// its buffers once Append returns, unless b.Own is Given.
//
// If the store fails, Append returns the error and nothing is appended;
// the next Append then starts a new ledger (as a broker does after a failed
// write), so an entry that the store might have kept despite the error is
// never overwritten.
func (l *Ledger) Append(b Bytes, publishTime uint64, numMessages int32) (Position, error) {
	e, err := l.nextEntry(b, publishTime, numMessages)
	if err != nil {
		return Position{}, err
	}
	err = l.st.AppendEntry(l.topic, e.stored())
	if err != nil {
		l.roll = true
		return Position{}, fmt.Errorf("ledger: topic %q: append %s: %w", l.topic, e.Pos, err)
	}
	l.add(e)
	l.cur, l.curLen, l.roll = e.Pos.Ledger, int(e.Pos.Entry)+1, false
	return e.Pos, nil
}

// nextEntry builds the entry an append stores next: at the next position of
// the current ledger, or at entry 0 of a new one when the current one is
// full or an append failed; if no new ledger id can be had, it fails and the
// next append tries again. The Entry holds copies of b's bytes in the
// ledger's slabs, or b's bytes themselves when Given and large
// (arena.copyEntry). It does not advance the current position; the caller
// does once the entry is committed to.
func (l *Ledger) nextEntry(b Bytes, publishTime uint64, numMessages int32) (Entry, error) {
	id, entry := l.cur, int64(l.curLen)
	if l.roll || l.curLen >= l.opts.RolloverEntries {
		var err error
		if id, err = l.newLedgerID(); err != nil {
			l.roll = true
			return Entry{}, err
		}
		entry = 0
	}
	meta, payload := l.slabs.copyEntry(id, b.Meta, b.Payload, b.Own)
	return Entry{
		Pos:             Position{Ledger: id, Entry: entry},
		Meta:            meta,
		Payload:         payload,
		PublishTime:     publishTime,
		BrokerTimestamp: uint64(max(l.opts.Now().UnixMilli(), 0)),
		NumMessages:     numMessages,
		Sum:             b.Sum,
		HasSum:          b.HasSum,
	}, nil
}

// stored is the entry as the store keeps it.
func (e Entry) stored() store.StoredEntry {
	return store.StoredEntry{
		Ledger:          e.Pos.Ledger,
		Entry:           e.Pos.Entry,
		Meta:            e.Meta,
		Payload:         e.Payload,
		PublishTime:     e.PublishTime,
		BrokerTimestamp: e.BrokerTimestamp,
		NumMessages:     e.NumMessages,
	}
}

// Topic returns the name of the topic whose entries the Ledger holds.
func (l *Ledger) Topic() string { return l.topic }

// CurrentLedger returns the id of the ledger that received the last
// append, or that was started by Open if there was none since. The next
// Append goes to it unless it is full (or an append failed), in which
// case a greater id is used.
func (l *Ledger) CurrentLedger() int64 { return l.cur }

// Len returns the number of entries.
func (l *Ledger) Len() int { return l.n }
