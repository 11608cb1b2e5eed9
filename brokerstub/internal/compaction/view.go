package compaction

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
)

// ErrCorrupt is returned by Decode for bytes that are not an encoded View.
var ErrCorrupt = errors.New("compaction: corrupt compacted view")

// View is a topic's compacted view: its entries up to Horizon (the last
// entry the compaction read), in position order, at their original
// positions. The goroutine that owns the topic owns its View; a View is
// not changed after Compact or Decode returns it.
type View struct {
	// Horizon is the last position the compaction read.
	Horizon ledger.Position
	// Entries are the kept entries, in position order.
	Entries []ledger.Entry
}

// Next returns the first entry of v after p.
func (v *View) Next(p ledger.Position) (ledger.Entry, bool) {
	i := sort.Search(len(v.Entries), func(i int) bool { return p.Less(v.Entries[i].Pos) })
	if i == len(v.Entries) {
		return ledger.Entry{}, false
	}
	return v.Entries[i], true
}

// Get returns the entry of v at p.
func (v *View) Get(p ledger.Position) (ledger.Entry, bool) {
	i := sort.Search(len(v.Entries), func(i int) bool { return !v.Entries[i].Pos.Less(p) })
	if i == len(v.Entries) || v.Entries[i].Pos != p {
		return ledger.Entry{}, false
	}
	return v.Entries[i], true
}

// Last returns the last entry of v.
func (v *View) Last() (ledger.Entry, bool) {
	if len(v.Entries) == 0 {
		return ledger.Entry{}, false
	}
	return v.Entries[len(v.Entries)-1], true
}

// Size is the bytes of metadata and payload v holds.
func (v *View) Size() int64 {
	var n int64
	for _, e := range v.Entries {
		n += int64(len(e.Meta) + len(e.Payload))
	}
	return n
}

// viewMagic starts an encoded View (and names its version).
const viewMagic = "PGCV1"

// Encode returns v as bytes for a store: the magic, the horizon, the
// number of entries and each entry's position, times, message count,
// metadata and payload, integers as varints.
func (v *View) Encode() []byte {
	b := append([]byte(nil), viewMagic...)
	b = binary.AppendVarint(b, v.Horizon.Ledger)
	b = binary.AppendVarint(b, v.Horizon.Entry)
	b = binary.AppendUvarint(b, uint64(len(v.Entries)))
	for _, e := range v.Entries {
		b = binary.AppendVarint(b, e.Pos.Ledger)
		b = binary.AppendVarint(b, e.Pos.Entry)
		b = binary.AppendUvarint(b, e.PublishTime)
		b = binary.AppendUvarint(b, e.BrokerTimestamp)
		b = binary.AppendVarint(b, int64(e.NumMessages))
		b = binary.AppendUvarint(b, uint64(len(e.Meta)))
		b = append(b, e.Meta...)
		b = binary.AppendUvarint(b, uint64(len(e.Payload)))
		b = append(b, e.Payload...)
	}
	return b
}

// decoder reads an encoded View, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s", ErrCorrupt, what)
	}
}

func (d *decoder) varint(what string) int64 {
	n, k := binary.Varint(d.b)
	if k <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[k:]
	return n
}

func (d *decoder) uvarint(what string) uint64 {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[k:]
	return n
}

// bytes reads a length-prefixed field, checking the length against what
// is left before slicing (never allocating by the claimed length).
func (d *decoder) bytes(what string) []byte {
	n := d.uvarint(what + " length")
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail(what)
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

// Decode reads a View that Encode wrote. The View's entries alias b. It
// fails with ErrCorrupt, allocating nothing by a count or length the
// bytes claim, when b is not one.
func Decode(b []byte) (*View, error) {
	if len(b) < len(viewMagic) || string(b[:len(viewMagic)]) != viewMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	d := &decoder{b: b[len(viewMagic):]}
	v := &View{}
	v.Horizon.Ledger = d.varint("horizon")
	v.Horizon.Entry = d.varint("horizon")
	n := d.uvarint("count")
	// Each entry takes at least 7 bytes: a count past that is corrupt.
	if d.err == nil && n > uint64(len(d.b)/7) {
		d.fail("count")
	}
	if d.err != nil {
		return nil, d.err
	}
	v.Entries = make([]ledger.Entry, 0, n)
	for range n {
		var e ledger.Entry
		e.Pos.Ledger = d.varint("position")
		e.Pos.Entry = d.varint("position")
		e.PublishTime = d.uvarint("publish time")
		e.BrokerTimestamp = d.uvarint("broker timestamp")
		e.NumMessages = int32(d.varint("message count"))
		e.Meta = d.bytes("metadata")
		e.Payload = d.bytes("payload")
		if d.err != nil {
			return nil, d.err
		}
		if len(v.Entries) > 0 && !v.Entries[len(v.Entries)-1].Pos.Less(e.Pos) {
			return nil, fmt.Errorf("%w: entries out of order at %s", ErrCorrupt, e.Pos)
		}
		v.Entries = append(v.Entries, e)
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the entries", ErrCorrupt, len(d.b))
	}
	return v, nil
}

// LastIndex is the batch index of the last message of e that the view
// keeps (not compacted out): -1 for an entry that is not a batch, the
// batch's last index for one it cannot decode.
func LastIndex(e ledger.Entry, o Options) int32 {
	p, ok := parse(e, o)
	switch {
	case !ok || !isBatch(p):
		return -1
	case p.batch == nil:
		return p.md.GetNumMessagesInBatch() - 1
	}
	for i := len(p.batch) - 1; i >= 0; i-- {
		if !p.batch[i].Meta.GetCompactedOut() {
			return int32(i)
		}
	}
	return p.md.GetNumMessagesInBatch() - 1
}
