package messageid

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pb "github.com/pulsargo/sdk/internal/proto"
)

func TestCompareOrdersBatchIndexBeforeWholeEntry(t *testing.T) {
	whole := New(5, 3, -1, 0, 0)
	b0 := New(5, 3, 0, 0, 4)
	b3 := New(5, 3, 3, 0, 4)
	next := New(5, 4, -1, 0, 0)
	ordered := []MessageID{New(4, 100, -1, 0, 0), b0, b3, whole, next, New(6, 0, -1, 0, 0)}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			assert.Equal(t, want, Compare(ordered[i], ordered[j]), "%s vs %s", ordered[i], ordered[j])
		}
	}
}

func TestCompareIgnoresPartitionAndBatchSize(t *testing.T) {
	assert.Equal(t, 0, Compare(New(1, 2, 3, 0, 4), New(1, 2, 3, 7, 0)))
}

func TestEarliestLatest(t *testing.T) {
	assert.Equal(t, int64(-1), Earliest().LedgerID())
	assert.Equal(t, int64(-1), Earliest().EntryID())
	assert.Equal(t, int64(math.MaxInt64), Latest().LedgerID())
	assert.Equal(t, -1, Compare(Earliest(), New(0, 0, -1, -1, 0)))
	assert.Equal(t, 1, Compare(Latest(), New(1<<40, 1<<40, -1, -1, 0)))
}

func TestChunkIDReportsLastChunkAndKeepsFirst(t *testing.T) {
	first := New(3, 10, -1, 2, 0)
	last := New(3, 14, -1, 2, 0)
	c := NewChunk(first, last)
	assert.Equal(t, int64(14), c.EntryID())
	assert.Equal(t, int32(2), c.PartitionIdx())
	assert.Equal(t, first, FirstChunk(c))
	assert.Equal(t, last, LastChunk(c))
	assert.Equal(t, last, FirstChunk(last), "a plain id starts at itself")
	assert.True(t, Equal(c, NewChunk(first, last)))
	assert.False(t, Equal(c, last), "a chunk id is not its last chunk")
	assert.False(t, Equal(c, NewChunk(New(3, 11, -1, 2, 0), last)))
}

// otherID is a foreign MessageID implementation, as a user's type may be.
type otherID struct{ l, e int64 }

func (o otherID) Serialize() []byte   { return nil }
func (o otherID) LedgerID() int64     { return o.l }
func (o otherID) EntryID() int64      { return o.e }
func (o otherID) BatchIdx() int32     { return -1 }
func (o otherID) PartitionIdx() int32 { return -1 }
func (o otherID) BatchSize() int32    { return 0 }
func (o otherID) String() string      { return "" }

func TestOfForeignImplementation(t *testing.T) {
	id := Of(otherID{7, 8})
	assert.Equal(t, New(7, 8, -1, -1, 0), id)
	p := New(1, 2, -1, -1, 0)
	assert.Equal(t, p, Of(&p))
}

func TestSerializeRoundTrip(t *testing.T) {
	ids := []MessageID{
		New(1, 2, -1, -1, 0),
		New(1, 2, 3, 4, 10),
		New(0, 0, 0, 0, 1),
		Earliest(),
		Latest(),
		NewChunk(New(9, 1, -1, 3, 0), New(9, 7, -1, 3, 0)),
		NewChunk(New(8, 5, -1, -1, 0), New(9, 0, -1, -1, 0)),
	}
	for _, id := range ids {
		back, err := Deserialize(id.Serialize())
		require.NoError(t, err, id)
		assert.Equal(t, id, back, "serialize %s", id)
	}
}

func TestSerializedFieldsMatchOfficialClient(t *testing.T) {
	// The official Go client sets exactly these fields; the bytes must be
	// identical for ids to be exchangeable. Derived from the protobuf
	// encoding: field 1 varint 1 (08 01), field 2 varint 2 (10 02),
	// field 3 varint -1 as 10-byte two's complement (18 ff..ff 01),
	// field 4 varint 3 (20 03), field 6 varint 0 (30 00).
	got := New(1, 2, 3, -1, 0).Serialize()
	want := []byte{0x08, 0x01, 0x10, 0x02, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x20, 0x03, 0x30, 0x00}
	assert.Equal(t, want, got)

	c := NewChunk(New(1, 1, -1, 0, 0), New(1, 2, -1, 0, 0))
	var m pb.MessageIdData
	require.NoError(t, proto.Unmarshal(c.Serialize(), &m))
	assert.False(t, m.BatchSize != nil, "chunk ids carry no batch size, as upstream")
	assert.Equal(t, uint64(1), m.GetFirstChunkMessageId().GetEntryId())
	assert.Equal(t, uint64(2), m.GetEntryId())
}

func TestDeserializeRejectsBadInput(t *testing.T) {
	mk := func(m *pb.MessageIdData) []byte {
		b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
		require.NoError(t, err)
		return b
	}
	cases := map[string][]byte{
		"garbage":          {0xff, 0xff, 0xff},
		"missing required": mk(&pb.MessageIdData{LedgerId: proto.Uint64(1)}),
		"too large":        make([]byte, MaxSerializedSize+1),
		"negative batch size": mk(&pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(1),
			BatchSize: proto.Int32(-3)}),
		"batch index outside batch": mk(&pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(1),
			BatchIndex: proto.Int32(5), BatchSize: proto.Int32(5)}),
		"batch index below -1": mk(&pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(1),
			BatchIndex: proto.Int32(-2)}),
		"first chunk after last": mk(&pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(1),
			FirstChunkMessageId: &pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(2)}}),
		"nested first chunk": mk(&pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(9),
			FirstChunkMessageId: &pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(2),
				FirstChunkMessageId: &pb.MessageIdData{LedgerId: proto.Uint64(1), EntryId: proto.Uint64(1)}}}),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Deserialize(data)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid), "%v", err)
		})
	}
}

func TestStringParseRoundTrip(t *testing.T) {
	ids := []MessageID{
		New(1, 2, -1, -1, 0),
		New(1, 2, 0, 3, 0),
		New(123456789, 987654321, 17, -1, 0),
		Earliest(),
		Latest(),
		NewChunk(New(4, 1, -1, 0, 0), New(4, 9, -1, 0, 0)),
	}
	for _, id := range ids {
		back, err := Parse(id.String())
		require.NoError(t, err, id.String())
		assert.Equal(t, id, back)
	}
	assert.Equal(t, "4:1:0;4:9:0", NewChunk(New(4, 1, -1, 0, 0), New(4, 9, -1, 0, 0)).String())
	assert.Equal(t, "1:2:3:0", New(1, 2, 0, 3, 0).String())
}

func TestParseRejectsBadText(t *testing.T) {
	for _, s := range []string{"", "1", "1:2", "1:2:3:4:5", "a:b:c", "1:2:-2", "1:2:0:-1", "1:2:0;1:1:0", "1:2:0;x", "1:1:99999999999"} {
		_, err := Parse(s)
		assert.ErrorIs(t, err, ErrInvalid, "%q", s)
	}
}

func FuzzDeserialize(f *testing.F) {
	f.Add(New(1, 2, 3, 4, 10).Serialize())
	f.Add(NewChunk(New(1, 1, -1, 0, 0), New(1, 5, -1, 0, 0)).Serialize())
	f.Add(Earliest().Serialize())
	f.Add([]byte{0x08})
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := Deserialize(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		back, err := Deserialize(id.Serialize())
		if err != nil {
			t.Fatalf("re-deserialize %s: %v", id, err)
		}
		if !Equal(id, back) || id.PartitionIdx() != back.PartitionIdx() || id.BatchSize() != back.BatchSize() {
			t.Fatalf("round trip %s -> %s", id, back)
		}
	})
}
