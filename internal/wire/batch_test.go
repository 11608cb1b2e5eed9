package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// goldenBatch holds two messages, derived by hand:
//   - SingleMessageMetadata{payload_size: 1}: field 3 varint = 18 01 (2
//     bytes), body "a".
//   - SingleMessageMetadata{partition_key: "k", payload_size: 2}: field 2
//     bytes = 12 01 6b, field 3 varint = 18 02 (5 bytes), body "bc".
var goldenBatch = []byte{
	0x00, 0x00, 0x00, 0x02, 0x18, 0x01, 'a',
	0x00, 0x00, 0x00, 0x05, 0x12, 0x01, 'k', 0x18, 0x02, 'b', 'c',
}

func TestGoldenBatch(t *testing.T) {
	b, err := AppendBatchEntry(nil, &proto.SingleMessageMetadata{}, []byte("a"))
	require.NoError(t, err)
	b, err = AppendBatchEntry(b, &proto.SingleMessageMetadata{PartitionKey: protobuf.String("k")}, []byte("bc"))
	require.NoError(t, err)
	assert.Equal(t, goldenBatch, b)

	var keys, bodies []string
	err = SplitBatch(goldenBatch, 2, func(i int, smm *proto.SingleMessageMetadata, body []byte) error {
		assert.Equal(t, len(keys), i)
		keys = append(keys, smm.GetPartitionKey())
		bodies = append(bodies, string(body))
		assert.Equal(t, len(body), cap(body), "capacity cut at the body's end")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"", "k"}, keys)
	assert.Equal(t, []string{"a", "bc"}, bodies)

	msgs, err := DecodeBatch(goldenBatch, 2)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.EqualValues(t, 2, msgs[1].Meta.GetPayloadSize())
	assert.Equal(t, []byte("bc"), msgs[1].Body)
}

func TestBatchInPayloadFrame(t *testing.T) {
	meta := sampleMeta("p", 10)
	meta.NumMessagesInBatch = protobuf.Int32(2)
	meta.HighestSequenceId = protobuf.Uint64(11)
	cmd := sendCommand(1, 10)
	cmd.Send.NumMessages = protobuf.Int32(2)
	cmd.Send.HighestSequenceId = protobuf.Uint64(11)
	b, err := AppendPayloadFrame(nil, cmd, meta, goldenBatch)
	require.NoError(t, err)
	f, err := DecodeFrame(b, 0)
	require.NoError(t, err)
	assert.True(t, IsBatch(f.Meta))
	msgs, err := DecodeBatch(f.Payload, int(f.Meta.GetNumMessagesInBatch()))
	require.NoError(t, err)
	assert.Len(t, msgs, 2)

	assert.False(t, IsBatch(sampleMeta("p", 1)))
	assert.False(t, IsBatch(nil))
	assert.True(t, IsBatch(&proto.MessageMetadata{NumMessagesInBatch: protobuf.Int32(1)}))
}

func TestBatchRoundTripEmptyBodiesAndProperties(t *testing.T) {
	var b []byte
	var want []*proto.SingleMessageMetadata
	for i := range 50 {
		smm := &proto.SingleMessageMetadata{}
		if i%3 == 0 {
			populate(smm.ProtoReflect(), 0, true)
		}
		body := make([]byte, i%4) // some empty
		var err error
		b, err = AppendBatchEntry(b, smm, body)
		require.NoError(t, err)
		assert.EqualValues(t, len(body), smm.GetPayloadSize())
		want = append(want, smm)
	}
	msgs, err := DecodeBatch(b, 50)
	require.NoError(t, err)
	for i, m := range msgs {
		assert.True(t, protobuf.Equal(want[i], m.Meta), i)
		assert.Len(t, m.Body, i%4)
	}
	// A nil metadata is an empty one.
	b, err = AppendBatchEntry(nil, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 0, 0, 2, 0x18, 0x00}, b)
	assert.Len(t, b, MinBatchEntrySize)
	require.NoError(t, SplitBatch(b, 1, nil))
}

func TestSplitBatchErrors(t *testing.T) {
	withSize := func(size uint32, rest ...byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, size), rest...)
	}
	cases := []struct {
		name    string
		payload []byte
		n       int
	}{
		{"zero count", goldenBatch, 0},
		{"negative count", goldenBatch, -1},
		{"count above bound", goldenBatch, len(goldenBatch)/MinBatchEntrySize + 1},
		{"huge count", goldenBatch, math.MaxInt32},
		{"max int count", goldenBatch, math.MaxInt},
		{"fewer messages than count", goldenBatch, 3 - 0}, // 18/6 = 3 passes the bound
		{"more messages than count", goldenBatch, 1},
		{"trailing bytes", append(append([]byte{}, goldenBatch...), 0, 0, 0, 0, 0, 0), 2},
		{"empty payload", nil, 1},
		{"metadata size overruns", withSize(7, 0x18, 0x00, 0, 0, 0, 0), 1},
		{"metadata size huge", withSize(0xFFFFFFFF, 0x18, 0x00, 0, 0, 0, 0), 1},
		{"metadata garbage", withSize(2, 0xff, 0xff, 0, 0), 1},
		{"payload_size missing", withSize(2, 0x20, 0x01, 0, 0), 1},
		{"payload_size negative", withSize(11, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 1},
		{"payload_size overruns", withSize(2, 0x18, 0x05, 'a', 'b'), 1},
		{"payload_size huge", withSize(6, 0x18, 0xff, 0xff, 0xff, 0xff, 0x07, 'a', 'b'), 1},
		{"trailing partial size", append(append([]byte{}, goldenBatch[:7]...), 0, 0, 0, 0, 0, 0)[:9], 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			err := SplitBatch(c.payload, c.n, func(int, *proto.SingleMessageMetadata, []byte) error {
				calls++
				return nil
			})
			requireKind(t, err, ErrBadBatch)
			_, err = DecodeBatch(c.payload, c.n)
			requireKind(t, err, ErrBadBatch)
			allocs := testing.AllocsPerRun(20, func() { _ = SplitBatch(c.payload, c.n, nil) })
			assert.LessOrEqual(t, allocs, 30.0)
		})
	}

	// An error from fn is returned as is and stops the walk.
	stop := errors.New("stop")
	calls := 0
	err := SplitBatch(goldenBatch, 2, func(int, *proto.SingleMessageMetadata, []byte) error {
		calls++
		return stop
	})
	assert.Equal(t, stop, err)
	assert.Equal(t, 1, calls)
}

func TestAppendBatchEntryErrors(t *testing.T) {
	// A required field missing inside a property.
	smm := &proto.SingleMessageMetadata{Properties: []*proto.KeyValue{{Key: protobuf.String("k")}}}
	out, err := AppendBatchEntry([]byte("keep"), smm, []byte("x"))
	requireKind(t, err, ErrMalformed)
	assert.Equal(t, []byte("keep"), out)
}
