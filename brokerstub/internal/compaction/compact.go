package compaction

import (
	"errors"
	"fmt"
	"iter"
	"slices"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/compress"
	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// ErrEmptyRecord is returned when phase two finds, among the latest
// messages of phase one, one with an empty payload (Pulsar's "Compaction
// phase found empty record from sorted key-map"); it cannot happen with
// entries that do not change between the phases.
var ErrEmptyRecord = errors.New("compaction: phase two found an empty record among the latest messages")

// Options bound the work of Compact.
type Options struct {
	// MaxUncompressedSize bounds the uncompressed size of a batch that
	// Compact decompresses (the broker's max message size); a batch that
	// claims more is kept whole, as one that does not decode. Zero means
	// 5 MiB (Pulsar's default maxMessageSize).
	MaxUncompressedSize int
}

func (o Options) limit() int {
	if o.MaxUncompressedSize > 0 {
		return o.MaxUncompressedSize
	}
	return 5 << 20
}

// Stats count what one compaction did.
type Stats struct {
	// Read is the number of entries read; Kept those in the view.
	Read, Kept int
	// Keys is the number of keys with a latest message.
	Keys int
}

// msgID is one message: an entry and its index in the batch (-1 for an
// entry that is not read as a batch).
type msgID struct {
	pos   ledger.Position
	index int32
}

// Compact computes the compacted view of entries (in position order, all at
// or before horizon, the previous view's entries first when there is one).
// entries is iterated twice. It returns the view with the given horizon.
func Compact(entries iter.Seq[ledger.Entry], horizon ledger.Position, o Options) (*View, Stats, error) {
	var st Stats
	latest := map[string]msgID{}
	for e := range entries {
		st.Read++
		phaseOne(e, latest, o)
	}
	st.Keys = len(latest)
	v := &View{Horizon: horizon}
	for e := range entries {
		out, keep, err := phaseTwo(e, latest, o)
		if err != nil {
			return nil, st, fmt.Errorf("compact %s: %w", e.Pos, err)
		}
		if keep {
			v.Entries = append(v.Entries, out)
		}
	}
	st.Kept = len(v.Entries)
	return v, st, nil
}

// parsed is an entry's metadata and, for a readable batch, its messages.
type parsed struct {
	md    pb.MessageMetadata
	batch []wire.BatchMessage // nil unless a readable batch that decoded
	bad   bool                // a readable batch that did not decode
}

func parse(e ledger.Entry, o Options) (*parsed, bool) {
	p := &parsed{}
	if err := (gproto.UnmarshalOptions{AllowPartial: true}).Unmarshal(e.Meta, &p.md); err != nil {
		return nil, false // not a message brokerstub could have stored; left out
	}
	if !readableBatch(&p.md) {
		return p, true
	}
	msgs, err := decodeBatch(&p.md, e.Payload, o)
	if err != nil {
		p.bad = true
		return p, true
	}
	p.batch = msgs
	return p, true
}

// readableBatch is Pulsar's RawBatchConverter.isReadableBatch: a batch that
// is not encrypted.
func readableBatch(md *pb.MessageMetadata) bool {
	return wire.IsBatch(md) && len(md.GetEncryptionKeys()) == 0
}

// decodeBatch decompresses and splits a batch payload, bounded by o.
func decodeBatch(md *pb.MessageMetadata, payload []byte, o Options) ([]wire.BatchMessage, error) {
	raw := payload
	if md.GetCompression() != pb.CompressionType_NONE {
		c, err := compress.Lookup(compress.Type(md.GetCompression()))
		if err != nil {
			return nil, err
		}
		raw, err = compress.Decompress(c, nil, payload, int(md.GetUncompressedSize()), o.limit())
		if err != nil {
			return nil, err
		}
	}
	return wire.DecodeBatch(raw, int(md.GetNumMessagesInBatch()))
}

// isMarker is Pulsar's Markers.isServerOnlyMarker: every marker type the
// broker writes (transaction and replicated-subscription markers).
func isMarker(md *pb.MessageMetadata) bool { return md.MarkerType != nil }

// singleSize is the size phase one judges a message that is not read as a
// batch by: its uncompressed_size when set, else its payload's length.
func singleSize(md *pb.MessageMetadata, payload []byte) int {
	if md.UncompressedSize != nil {
		return int(md.GetUncompressedSize())
	}
	return len(payload)
}

func phaseOne(e ledger.Entry, latest map[string]msgID, o Options) {
	p, ok := parse(e, o)
	if !ok || isMarker(&p.md) || p.bad {
		return
	}
	if p.batch != nil {
		for i, m := range p.batch {
			if m.Meta.GetCompactedOut() || m.Meta.PartitionKey == nil {
				continue
			}
			if m.Meta.GetPayloadSize() > 0 {
				latest[m.Meta.GetPartitionKey()] = msgID{e.Pos, int32(i)}
			} else {
				delete(latest, m.Meta.GetPartitionKey())
			}
		}
		return
	}
	if p.md.PartitionKey == nil {
		return
	}
	if singleSize(&p.md, e.Payload) > 0 {
		latest[p.md.GetPartitionKey()] = msgID{e.Pos, -1}
	} else {
		delete(latest, p.md.GetPartitionKey())
	}
}

func phaseTwo(e ledger.Entry, latest map[string]msgID, o Options) (ledger.Entry, bool, error) {
	p, ok := parse(e, o)
	switch {
	case !ok || isMarker(&p.md):
		return ledger.Entry{}, false, nil
	case p.bad:
		return plain(e), true, nil // Pulsar: "Whole batch will be included in output"
	case p.batch != nil:
		return rebatch(e, p, latest)
	}
	if p.md.PartitionKey == nil {
		return ledger.Entry{}, false, nil
	}
	if id, ok := latest[p.md.GetPartitionKey()]; !ok || id != (msgID{e.Pos, -1}) {
		return ledger.Entry{}, false, nil
	}
	if singleSize(&p.md, e.Payload) <= 0 {
		return ledger.Entry{}, false, ErrEmptyRecord
	}
	return plain(e), true, nil
}

// plain is e as the view keeps it: its own copy of the bytes, no checksum
// (a delivery computes it).
func plain(e ledger.Entry) ledger.Entry {
	e.Meta = slices.Clone(e.Meta)
	e.Payload = slices.Clone(e.Payload)
	e.Sum, e.HasSum = 0, false
	return e
}

// rebatch re-encodes a batch with the messages that are not the latest of
// their key emptied and flagged compacted_out, as RawBatchConverter does;
// it reports false when no message is kept.
func rebatch(e ledger.Entry, p *parsed, latest map[string]msgID) (ledger.Entry, bool, error) {
	var raw []byte
	kept := 0
	for i, m := range p.batch {
		keep := !m.Meta.GetCompactedOut() && m.Meta.PartitionKey != nil &&
			latest[m.Meta.GetPartitionKey()] == msgID{e.Pos, int32(i)} && len(m.Body) > 0
		var err error
		if keep {
			kept++
			raw, err = wire.AppendBatchEntry(raw, m.Meta, m.Body)
		} else {
			raw, err = wire.AppendBatchEntry(raw, &pb.SingleMessageMetadata{CompactedOut: gproto.Bool(true)}, nil)
		}
		if err != nil {
			return ledger.Entry{}, false, err
		}
	}
	if kept == 0 {
		return ledger.Entry{}, false, nil
	}
	md := gproto.Clone(&p.md).(*pb.MessageMetadata)
	payload := raw
	if md.GetCompression() != pb.CompressionType_NONE {
		c, err := compress.Lookup(compress.Type(md.GetCompression()))
		if err != nil {
			return ledger.Entry{}, false, err
		}
		payload = c.Compress(nil, raw)
	}
	md.UncompressedSize = gproto.Uint32(uint32(len(raw)))
	meta, err := gproto.Marshal(md)
	if err != nil {
		return ledger.Entry{}, false, err
	}
	return ledger.Entry{Pos: e.Pos, Meta: meta, Payload: payload, PublishTime: e.PublishTime,
		BrokerTimestamp: e.BrokerTimestamp, NumMessages: e.NumMessages}, true, nil
}

func isBatch(p *parsed) bool { return wire.IsBatch(&p.md) }
