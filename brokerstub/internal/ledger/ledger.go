package ledger

import (
	"fmt"
	"time"

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
	// curSize is the bytes of the current ledger's entries, curSince when
	// it was started and lastAdd when it was last appended to (rollover.go).
	curSize           int64
	curSince, lastAdd time.Time

	// slabs holds the bytes of appended entries (arena.go).
	slabs arena
	// reader reads entries back whose slab was dropped (cache.go); nil
	// when the Ledger has no Cache or its store cannot, and then every
	// slab stays until its ledger goes.
	reader store.EntryReader
	// memo is the last entry read back, as dispatch often reads one entry
	// twice in a row (to look at it, then to send it).
	memo struct {
		pos     Position
		payload []byte
	}
}

// segment is one ledger with at least one entry; entries[i].pos.Entry == i.
// size is the bytes of metadata and payload its entries hold.
type segment struct {
	id      int64
	entries []item
	size    int64
}

// item is an entry as a Ledger keeps it: everything but the payload in
// memory; the payload in a slab (arena.go), read back from the store once
// the slab is dropped.
type item struct {
	pos             Position
	meta            []byte
	sl              *slab // nil for an empty payload
	off, n          int   // the payload is sl's bytes [off, off+n)
	publishTime     uint64
	brokerTimestamp uint64
	numMessages     int32
	sum             uint32
	hasSum          bool
}

// head returns the entry of it without its payload.
func (it *item) head() Entry {
	return Entry{
		Pos:             it.pos,
		Meta:            it.meta,
		PublishTime:     it.publishTime,
		BrokerTimestamp: it.brokerTimestamp,
		NumMessages:     it.numMessages,
		Sum:             it.sum,
		HasSum:          it.hasSum,
	}
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
	cache := opts.Cache
	if r, ok := st.(store.EntryReader); ok && cache != nil {
		l.reader = r
	} else {
		cache = nil
	}
	l.slabs = newArena(cache)
	if err := st.Entries(topic, l.replay); err != nil {
		return nil, fmt.Errorf("ledger: topic %q: replay: %w", topic, err)
	}
	id, err := l.newLedgerID()
	if err != nil {
		return nil, err
	}
	l.cur = id
	l.curSince = l.opts.Now()
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
	// The store's slices are the Ledger's to keep (a fresh copy from
	// bbolt, the kept slices of the memory store): the payload becomes a
	// slab of its own, counted by the Cache, so that a replay holds no
	// more than the budget either; the metadata is copied apart, so that
	// it does not keep the payload's buffer once its slab is dropped.
	it := item{
		pos:             pos,
		meta:            l.slabs.copyMeta(se.Meta),
		publishTime:     se.PublishTime,
		brokerTimestamp: se.BrokerTimestamp,
		numMessages:     se.NumMessages,
		n:               len(se.Payload),
	}
	if it.n > 0 {
		it.sl = l.slabs.newSlab(pos.Ledger, se.Payload[:it.n:it.n])
		it.sl.used, it.sl.last = it.n, pos
	}
	l.add(it)
	return nil
}

// add appends it in memory; it.pos is either the next entry of the last
// segment or entry 0 of a later ledger.
func (l *Ledger) add(it item) {
	k := len(l.segs)
	if k == 0 || l.segs[k-1].id != it.pos.Ledger {
		l.segs = append(l.segs, segment{id: it.pos.Ledger})
		k++
	}
	l.segs[k-1].entries = append(l.segs[k-1].entries, it)
	l.segs[k-1].size += int64(len(it.meta) + it.n)
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
	it, payload, err := l.nextEntry(b, publishTime, numMessages)
	if err != nil {
		return Position{}, err
	}
	err = l.st.AppendEntry(l.topic, it.stored(payload))
	if err != nil {
		l.roll = true
		return Position{}, fmt.Errorf("ledger: topic %q: append %s: %w", l.topic, it.pos, err)
	}
	l.add(it)
	l.committed(it)
	return it.pos, nil
}

// nextEntry builds the entry an append stores next: at the next position of
// the current ledger, or at entry 0 of a new one when the current one is
// full or an append failed; if no new ledger id can be had, it fails and the
// next append tries again. The item holds a copy of b's metadata, and of
// its payload in the ledger's slabs, or the payload itself when Given and
// large (arena.place); payload is the kept payload, for the store. It does
// not advance the current position; the caller does once the entry is
// committed to.
func (l *Ledger) nextEntry(b Bytes, publishTime uint64, numMessages int32) (it item, payload []byte, err error) {
	id, entry := l.cur, int64(l.curLen)
	if l.roll || l.curLen >= l.opts.RolloverEntries && l.opts.MinRolloverTime <= 0 {
		if id, err = l.newLedgerID(); err != nil {
			l.roll = true
			return item{}, nil, err
		}
		entry = 0
	}
	pos := Position{Ledger: id, Entry: entry}
	sl, off := l.slabs.place(pos, b.Payload, b.Own)
	payload = []byte{}
	if sl != nil {
		payload = sl.buf()[off : off+len(b.Payload) : off+len(b.Payload)]
	}
	return item{
		pos:             pos,
		meta:            l.slabs.copyMeta(b.Meta),
		sl:              sl,
		off:             off,
		n:               len(b.Payload),
		publishTime:     publishTime,
		brokerTimestamp: uint64(max(l.opts.Now().UnixMilli(), 0)),
		numMessages:     numMessages,
		sum:             b.Sum,
		hasSum:          b.HasSum,
	}, payload, nil
}

// stored is the entry as the store keeps it.
func (it *item) stored(payload []byte) store.StoredEntry {
	return store.StoredEntry{
		Ledger:          it.pos.Ledger,
		Entry:           it.pos.Entry,
		Meta:            it.meta,
		Payload:         payload,
		PublishTime:     it.publishTime,
		BrokerTimestamp: it.brokerTimestamp,
		NumMessages:     it.numMessages,
	}
}

// Close drops the bytes the Ledger holds from its Cache (its topic is
// unloaded or deleted). The Ledger must not be used afterwards.
func (l *Ledger) Close() {
	l.slabs.dropAll()
	l.segs, l.n = nil, 0
	l.memo.pos, l.memo.payload = Position{}, nil
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
