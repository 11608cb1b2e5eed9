package keyshared

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// murmurVectors were computed with github.com/spaolacci/murmur3 (Sum32,
// seed 0), which agrees with Guava's Hashing.murmur3_32().hashBytes; the
// last two columns are the sticky key hashes Pulsar derives: in the
// consistent-hashing range [1, 65535] (m % 65535 + 1) and in the
// range-selector range [0, 65535] (m % 65536, 0 -> 1).
var murmurVectors = []struct {
	in                 string
	sum                uint32
	consistent, ranges int32
}{
	{"", 0x00000000, 1, 1},
	{"a", 0x3c2569b2, 42456, 27058},
	{"ab", 0x9bbfd75f, 62239, 55135},
	{"abc", 0xb3dd93fa, 51160, 37882},
	{"abcd", 0x43ed676a, 43864, 26474},
	{"hello", 0x248bfa47, 7892, 64071},
	{"key-1", 0x98b115a0, 11858, 5536},
	{"NONE_KEY", 0x9e15bea3, 56505, 48803},
	{"The quick brown fox jumps over the lazy dog", 0x2e4ff723, 9588, 63267},
	{"c1\x000\x000", 0x46b740ae, 34662, 16558},
	{"c1\x000\x0099", 0xaa400087, 10952, 135},
	{"producer-1-42", 0xd655c14b, 6050, 49483},
	{"\xff\xfe\xfd\x80\x00\x01\x02", 0xc5c88f45, 54542, 36677},
}

func TestMurmur3Vectors(t *testing.T) {
	for _, v := range murmurVectors {
		assert.Equal(t, v.sum, Murmur3([]byte(v.in), 0), "%q", v.in)
		assert.Equal(t, v.sum&0x7fffffff, Murmur31([]byte(v.in)), "%q", v.in)
		assert.Equal(t, v.consistent, StickyKeyHash([]byte(v.in), consistentRange), "%q consistent", v.in)
		assert.Equal(t, v.ranges, StickyKeyHash([]byte(v.in), Range{0, RangeSize - 1}), "%q ranges", v.in)
	}
	// Seeded, as murmur3.Sum32WithSeed([]byte("hello"), 42).
	assert.Equal(t, uint32(3806057185), Murmur3([]byte("hello"), 42))
}

func TestHashNeverZero(t *testing.T) {
	assert.Equal(t, int32(1), HashInRange(0, Range{0, RangeSize - 1}))
	assert.Equal(t, int32(1), HashInRange(65536*7, Range{0, RangeSize - 1}))
	assert.Equal(t, int32(1), HashInRange(0, consistentRange))
	assert.Equal(t, int32(65535), HashInRange(65534, consistentRange))
	assert.Equal(t, int32(1), HashInRange(65535, consistentRange))
}

func TestStickyKey(t *testing.T) {
	name, seq := "prod-1", uint64(42)
	b64 := true
	for _, c := range []struct {
		name string
		md   *proto.MessageMetadata
		want string
	}{
		{"ordering key first", &proto.MessageMetadata{OrderingKey: []byte("ok"), PartitionKey: gproto.String("pk"), ProducerName: &name, SequenceId: &seq}, "ok"},
		{"empty ordering key counts", &proto.MessageMetadata{OrderingKey: []byte{}, PartitionKey: gproto.String("pk")}, ""},
		{"partition key", &proto.MessageMetadata{PartitionKey: gproto.String("pk"), ProducerName: &name, SequenceId: &seq}, "pk"},
		{"empty partition key counts", &proto.MessageMetadata{PartitionKey: gproto.String(""), ProducerName: &name, SequenceId: &seq}, ""},
		{"base64 partition key", &proto.MessageMetadata{PartitionKey: gproto.String(base64.StdEncoding.EncodeToString([]byte{0, 1, 0xff})), PartitionKeyB64Encoded: &b64}, "\x00\x01\xff"},
		{"base64 without padding", &proto.MessageMetadata{PartitionKey: gproto.String("YQ"), PartitionKeyB64Encoded: &b64}, "a"},
		{"bad base64", &proto.MessageMetadata{PartitionKey: gproto.String("!!"), PartitionKeyB64Encoded: &b64, ProducerName: &name, SequenceId: &seq}, "NONE_KEY"},
		{"base64 with line break", &proto.MessageMetadata{PartitionKey: gproto.String("YQ\n"), PartitionKeyB64Encoded: &b64}, "NONE_KEY"},
		{"producer and sequence", &proto.MessageMetadata{ProducerName: &name, SequenceId: &seq}, "prod-1-42"},
		{"nothing", &proto.MessageMetadata{}, "NONE_KEY"},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, string(StickyKey(c.md)))
		})
	}
}

// TestEmptyOrderingKeySurvivesTheWire: an ordering key set to "" is present
// on the wire, and Pulsar routes by it (hasOrderingKey), not by the
// partition key.
func TestEmptyOrderingKeySurvivesTheWire(t *testing.T) {
	b, err := gproto.Marshal(&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(1),
		PublishTime: gproto.Uint64(1), OrderingKey: []byte{}, PartitionKey: gproto.String("pk")})
	require.NoError(t, err)
	var md proto.MessageMetadata
	require.NoError(t, gproto.Unmarshal(b, &md))
	assert.Equal(t, "", string(StickyKey(&md)))
	assert.NotNil(t, md.OrderingKey)
}

func TestRange(t *testing.T) {
	r := Range{10, 20}
	assert.Equal(t, int32(11), r.Size())
	assert.True(t, r.Contains(10) && r.Contains(20) && !r.Contains(21))
	assert.True(t, r.Overlaps(Range{20, 30}))
	assert.False(t, r.Overlaps(Range{21, 30}))
	assert.Equal(t, "[10, 20]", r.String())
}
