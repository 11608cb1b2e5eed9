package brokerstub

import (
	"fmt"
	"hash/crc32"
	"math/bits"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// attachProducer creates the topic by attaching a producer to it, as an
// application's first producer auto-creates it.
func attachProducer(t *testing.T, c *rawClient, topic string, id uint64) {
	t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: &id, RequestId: gproto.Uint64(1000 + id)}})
	c.expect(proto.BaseCommand_PRODUCER_SUCCESS)
}

func getTopics(c *rawClient, rid uint64, mode proto.CommandGetTopicsOfNamespace_Mode, pattern, hash *string) *proto.CommandGetTopicsOfNamespaceResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE.Enum(), GetTopicsOfNamespace: &proto.CommandGetTopicsOfNamespace{
		RequestId: &rid, Namespace: gproto.String("public/default"), Mode: mode.Enum(), TopicsPattern: pattern, TopicsHash: hash}})
	r := c.expect(proto.BaseCommand_GET_TOPICS_OF_NAMESPACE_RESPONSE).GetGetTopicsOfNamespaceResponse()
	require.Equal(c.t, rid, r.GetRequestId())
	return r
}

// Pulsar's TopicList.calculateHash: Guava's crc32c over the sorted names
// joined by ','; HashCode.toString writes the int's bytes least
// significant first.
func TestTopicsHashIsPulsarsCRC32C(t *testing.T) {
	names := []string{"persistent://my-property/my-ns/pattern-topic-3", "persistent://my-property/my-ns/pattern-topic-1"}
	sum := crc32.Checksum([]byte(names[1]+","+names[0]), crc32.MakeTable(crc32.Castagnoli))
	assert.Equal(t, fmt.Sprintf("%08x", bits.ReverseBytes32(sum)), engine.TopicsHash(names))
	assert.Equal(t, engine.TopicsHash(names), engine.TopicsHash([]string{names[1], names[0]}), "order does not matter")
	assert.NotEqual(t, engine.TopicsHash(names), engine.TopicsHash(names[:1]))
	assert.Equal(t, "00000000", engine.TopicsHash(nil))
	// The check value of CRC-32C ("123456789" -> 0xe3069283), bytes reversed.
	assert.Equal(t, "839206e3", engine.TopicsHash([]string{"123456789"}))
}

func TestTopicsPatternAsPulsar(t *testing.T) {
	for _, tc := range []struct {
		pattern, topic string
		want           bool
	}{
		{"persistent://public/default/orders-.*", "persistent://public/default/orders-1", true},
		{"persistent://public/default/orders-.*", "persistent://public/default/orders-1-partition-2", true},
		{"persistent://public/default/orders", "persistent://public/default/orders-partition-0", true},
		{"public/default/orders-.*", "persistent://public/default/orders-1", true},
		{"^persistent://public/default/orders-.*", "persistent://public/default/orders-1", true},
		{"persistent://public/default/orders", "persistent://public/default/orders-1", false}, // whole name
		{"persistent://public/default/rders", "persistent://public/default/orders", false},
		{"non-persistent://public/default/np", "non-persistent://public/default/np", true},
	} {
		p, err := engine.CompileTopicsPattern(tc.pattern)
		require.NoError(t, err, tc.pattern)
		assert.Equal(t, tc.want, p.Matches(tc.topic), "%s ~ %s", tc.pattern, tc.topic)
	}
	_, err := engine.CompileTopicsPattern("http://public/default/x")
	assert.ErrorIs(t, err, engine.ErrPatternScheme)
}

func TestGetTopicsOfNamespaceModesPatternAndHash(t *testing.T) {
	b := RunT(t)
	require.NoError(t, b.CreatePartitionedTopic("parts", 2))
	require.NoError(t, b.CreateNamespace("other/ns"))
	c := dialRaw(t, b)
	c.connect()
	for i, topic := range []string{"orders-1", "orders-2", "other", "non-persistent://public/default/np",
		"persistent://public/default/__change_events", "persistent://other/ns/orders-3"} {
		attachProducer(t, c, topic, uint64(i))
	}
	persistent := []string{
		"persistent://public/default/orders-1", "persistent://public/default/orders-2",
		"persistent://public/default/other",
		"persistent://public/default/parts-partition-0", "persistent://public/default/parts-partition-1",
	}

	r := getTopics(c, 1, proto.CommandGetTopicsOfNamespace_PERSISTENT, nil, nil)
	assert.Equal(t, persistent, r.GetTopics(), "system topics and other namespaces are left out")
	assert.False(t, r.GetFiltered())
	assert.True(t, r.GetChanged())
	assert.Equal(t, engine.TopicsHash(persistent), r.GetTopicsHash())

	assert.Equal(t, []string{"non-persistent://public/default/np"},
		getTopics(c, 2, proto.CommandGetTopicsOfNamespace_NON_PERSISTENT, nil, nil).GetTopics())
	assert.Len(t, getTopics(c, 3, proto.CommandGetTopicsOfNamespace_ALL, nil, nil).GetTopics(), len(persistent)+1)

	r = getTopics(c, 4, proto.CommandGetTopicsOfNamespace_PERSISTENT, gproto.String("persistent://public/default/orders-.*"), nil)
	orders := persistent[:2]
	assert.Equal(t, orders, r.GetTopics())
	assert.True(t, r.GetFiltered())
	assert.Equal(t, engine.TopicsHash(orders), r.GetTopicsHash())

	// The client already has this list: no topics, changed=false.
	r = getTopics(c, 5, proto.CommandGetTopicsOfNamespace_PERSISTENT, gproto.String("persistent://public/default/orders-.*"), gproto.String(engine.TopicsHash(orders)))
	assert.Empty(t, r.GetTopics())
	assert.False(t, r.GetChanged())
	assert.Equal(t, engine.TopicsHash(orders), r.GetTopicsHash())

	// A partitioned topic's partitions match its name.
	r = getTopics(c, 6, proto.CommandGetTopicsOfNamespace_PERSISTENT, gproto.String("persistent://public/default/parts"), nil)
	assert.Equal(t, persistent[3:], r.GetTopics())

	// Longer than subscriptionPatternMaxLength: not evaluated, not filtered.
	long := "persistent://public/default/" + strings.Repeat("o", engine.SubscriptionPatternMaxLength)
	r = getTopics(c, 7, proto.CommandGetTopicsOfNamespace_PERSISTENT, &long, nil)
	assert.False(t, r.GetFiltered())
	assert.Equal(t, persistent, r.GetTopics())

	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE.Enum(), GetTopicsOfNamespace: &proto.CommandGetTopicsOfNamespace{
		RequestId: gproto.Uint64(8), Namespace: gproto.String("public/default"), TopicsPattern: gproto.String("persistent://public/default/(")}})
	assert.Equal(t, proto.ServerError_MetadataError, c.expect(proto.BaseCommand_ERROR).GetError().GetError())
}

func TestConnectedAdvertisesTopicWatchers(t *testing.T) {
	c := dialRaw(t, RunT(t))
	assert.True(t, c.connect().GetFeatureFlags().GetSupportsTopicWatchers())
}
