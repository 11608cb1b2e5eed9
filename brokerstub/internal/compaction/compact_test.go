package compaction

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/compress"
	pb "github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

func pos(e int64) ledger.Position { return ledger.Position{Ledger: 1, Entry: e} }

// single is a non-batched message; key "" means no key.
func single(t *testing.T, e int64, key, value string) ledger.Entry {
	t.Helper()
	md := &pb.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(uint64(e)),
		PublishTime: gproto.Uint64(1), UncompressedSize: gproto.Uint32(uint32(len(value)))}
	if key != "" {
		md.PartitionKey = gproto.String(key)
	}
	meta, err := gproto.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	return ledger.Entry{Pos: pos(e), Meta: meta, Payload: []byte(value), NumMessages: 1}
}

// kv is one message of a batch.
type kv struct{ key, value string }

func batch(t *testing.T, e int64, ct pb.CompressionType, msgs ...kv) ledger.Entry {
	t.Helper()
	var raw []byte
	for _, m := range msgs {
		smm := &pb.SingleMessageMetadata{}
		if m.key != "" {
			smm.PartitionKey = gproto.String(m.key)
		}
		var err error
		if raw, err = wire.AppendBatchEntry(raw, smm, []byte(m.value)); err != nil {
			t.Fatal(err)
		}
	}
	payload := raw
	if ct != pb.CompressionType_NONE {
		c, err := compress.Lookup(compress.Type(ct))
		if err != nil {
			t.Fatal(err)
		}
		payload = c.Compress(nil, raw)
	}
	md := &pb.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(uint64(e)),
		PublishTime: gproto.Uint64(1), NumMessagesInBatch: gproto.Int32(int32(len(msgs))),
		Compression: ct.Enum(), UncompressedSize: gproto.Uint32(uint32(len(raw)))}
	meta, err := gproto.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	return ledger.Entry{Pos: pos(e), Meta: meta, Payload: payload, NumMessages: int32(len(msgs))}
}

// read returns what a reader of v gets: key=value per message, "-" for a
// compacted-out message of a batch, with the entry ids.
func read(t *testing.T, v *View) []string {
	t.Helper()
	var out []string
	for _, e := range v.Entries {
		var md pb.MessageMetadata
		if err := gproto.Unmarshal(e.Meta, &md); err != nil {
			t.Fatal(err)
		}
		id := e.Pos.String()
		if !wire.IsBatch(&md) {
			out = append(out, id+" "+md.GetPartitionKey()+"="+string(e.Payload))
			continue
		}
		msgs, err := decodeBatch(&md, e.Payload, Options{})
		if err != nil {
			t.Fatalf("entry %s of the view does not decode: %v", id, err)
		}
		for i, m := range msgs {
			s := id + "/" + string(rune('0'+i)) + " "
			if m.Meta.GetCompactedOut() {
				s += "-"
				if len(m.Body) != 0 {
					t.Errorf("%s: compacted-out message has %d bytes", s, len(m.Body))
				}
			} else {
				s += m.Meta.GetPartitionKey() + "=" + string(m.Body)
			}
			out = append(out, s)
		}
	}
	return out
}

func compactAll(t *testing.T, entries ...ledger.Entry) *View {
	t.Helper()
	v, _, err := Compact(slices.Values(entries), entries[len(entries)-1].Pos, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCompactLatestPerKey: the latest message of each key survives at its
// own position; an empty payload deletes the key; a key deleted and then
// written again has its new value; keyless messages are left out.
func TestCompactLatestPerKey(t *testing.T) {
	v := compactAll(t,
		single(t, 0, "a", "a1"),
		single(t, 1, "b", "b1"),
		single(t, 2, "", "nokey"),
		single(t, 3, "a", "a2"),
		single(t, 4, "b", ""), // deletes b
		single(t, 5, "c", "c1"),
		single(t, 6, "c", ""),
		single(t, 7, "c", "c2"),
	)
	want := []string{"1:3 a=a2", "1:7 c=c2"}
	if got := read(t, v); !slices.Equal(got, want) {
		t.Errorf("view = %q, want %q", got, want)
	}
	if v.Horizon != pos(7) {
		t.Errorf("horizon %s, want 1:7", v.Horizon)
	}
}

// TestCompactRebatches: a batch keeps its size and the indexes of the
// messages kept; the others are emptied and flagged compacted_out; a batch
// with nothing kept goes; the compression of the batch is kept.
func TestCompactRebatches(t *testing.T) {
	for _, ct := range []pb.CompressionType{pb.CompressionType_NONE, pb.CompressionType_LZ4, pb.CompressionType_ZSTD} {
		t.Run(ct.String(), func(t *testing.T) {
			v := compactAll(t,
				batch(t, 0, ct, kv{"a", "a1"}, kv{"b", "b1"}, kv{"", "nokey"}, kv{"a", "a2"}),
				batch(t, 1, ct, kv{"b", "b2"}, kv{"c", "c1"}),
				batch(t, 2, ct, kv{"c", ""}, kv{"d", "d1"}),
				batch(t, 3, ct, kv{"d", "d2"}),
			)
			want := []string{"1:0/0 -", "1:0/1 -", "1:0/2 -", "1:0/3 a=a2", "1:1/0 b=b2", "1:1/1 -", "1:3/0 d=d2"}
			if got := read(t, v); !slices.Equal(got, want) {
				t.Errorf("view = %q, want %q", got, want)
			}
			var md pb.MessageMetadata
			if err := gproto.Unmarshal(v.Entries[0].Meta, &md); err != nil {
				t.Fatal(err)
			}
			if md.GetCompression() != ct || md.GetNumMessagesInBatch() != 4 {
				t.Errorf("rebatched metadata: compression %v batch %d", md.GetCompression(), md.GetNumMessagesInBatch())
			}
		})
	}
}

// TestCompactIncremental: compacting the previous view followed by newer
// entries gives what compacting everything gives, and a compacted-out
// message read again stays out.
func TestCompactIncremental(t *testing.T) {
	all := []ledger.Entry{
		batch(t, 0, pb.CompressionType_NONE, kv{"a", "a1"}, kv{"b", "b1"}),
		single(t, 1, "a", "a2"),
		single(t, 2, "c", "c1"),
		batch(t, 3, pb.CompressionType_NONE, kv{"b", ""}, kv{"c", "c2"}),
		single(t, 4, "e", "e1"),
	}
	first := compactAll(t, all[:3]...)
	again, _, err := Compact(slices.Values(append(slices.Clone(first.Entries), all[3:]...)), pos(4), Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole := compactAll(t, all...)
	if got, want := read(t, again), read(t, whole); !slices.Equal(got, want) {
		t.Errorf("incremental view = %q, one pass = %q", got, want)
	}
}

// TestCompactMarkersAndBadBatches: markers are left out; a batch that does
// not decode is kept whole, as Pulsar does.
func TestCompactMarkersAndBadBatches(t *testing.T) {
	marker := single(t, 0, "a", "x")
	md := &pb.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1),
		MarkerType: gproto.Int32(20), PartitionKey: gproto.String("a")}
	marker.Meta, _ = gproto.Marshal(md)
	bad := batch(t, 1, pb.CompressionType_NONE, kv{"a", "a1"})
	bad.Payload = []byte{0, 0, 0, 99, 1, 2}
	v := compactAll(t, marker, bad, single(t, 2, "b", "b1"))
	if len(v.Entries) != 2 || v.Entries[0].Pos != pos(1) || !bytes.Equal(v.Entries[0].Payload, bad.Payload) {
		t.Errorf("view %+v: want the undecodable batch whole and b", v.Entries)
	}
}

// TestCompactBoundsDecompression: a batch claiming an uncompressed size
// past the limit is not decompressed (kept whole).
func TestCompactBoundsDecompression(t *testing.T) {
	e := batch(t, 0, pb.CompressionType_LZ4, kv{"a", "a1"})
	var md pb.MessageMetadata
	_ = gproto.Unmarshal(e.Meta, &md)
	md.UncompressedSize = gproto.Uint32(1 << 31)
	e.Meta, _ = gproto.Marshal(&md)
	v, _, err := Compact(slices.Values([]ledger.Entry{e}), pos(0), Options{MaxUncompressedSize: 1 << 20})
	if err != nil || len(v.Entries) != 1 {
		t.Fatalf("view %v err %v: want the batch kept whole", v, err)
	}
}

func TestViewEncodeDecode(t *testing.T) {
	v := compactAll(t, single(t, 0, "a", "a1"), batch(t, 1, pb.CompressionType_NONE, kv{"b", "b1"}, kv{"a", "a2"}))
	got, err := Decode(v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.Horizon != v.Horizon || !slices.Equal(read(t, got), read(t, v)) {
		t.Errorf("decoded %q at %s, want %q at %s", read(t, got), got.Horizon, read(t, v), v.Horizon)
	}
	if e, ok := got.Next(pos(0)); !ok || e.Pos != pos(1) {
		t.Errorf("Next(1:0) = %v %v", e.Pos, ok)
	}
	if _, ok := got.Get(pos(0)); ok {
		t.Errorf("Get(1:0) found a compacted-out entry")
	}
	for _, b := range [][]byte{nil, []byte("PGCV1"), append([]byte("PGCV1\x00\x00"), 0xff, 0xff, 0xff, 0x7f)} {
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%q) err = %v, want ErrCorrupt", b, err)
		}
	}
}

// FuzzDecode: any bytes decode to a View or ErrCorrupt, never a panic, and
// a View decoded encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add((&View{Horizon: pos(3), Entries: []ledger.Entry{{Pos: pos(1), Meta: []byte{1}, Payload: []byte("x")}}}).Encode())
	f.Add([]byte("PGCV1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if again, err := Decode(v.Encode()); err != nil || len(again.Entries) != len(v.Entries) {
			t.Fatalf("re-decode: %v", err)
		}
	})
}
