package brokerstub

import (
	"net/http"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// TestAutoPartitionedTopicCountsAgainstMaxTopics: a partitioned topic
// auto-created by a partitioned-metadata lookup counts its partitions
// against maxTopicsPerNamespace; one that would go beyond it is refused
// with MetadataError (and 412 on the admin API's checkAllowAutoCreation).
func TestAutoPartitionedTopicCountsAgainstMaxTopics(t *testing.T) {
	b := RunT(t, Options{AutoTopicCreationPartitions: 3, Limits: Limits{MaxTopicsPerNamespace: 4}})
	c := dialRaw(t, b)
	c.connect()
	meta := func(topic string, rid uint64) *proto.CommandPartitionedTopicMetadataResponse {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
			Topic: gproto.String(topic), RequestId: gproto.Uint64(rid)}})
		return c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE).GetPartitionMetadataResponse()
	}
	first := meta("persistent://public/default/auto-a", 1)
	require.Equal(t, proto.CommandPartitionedTopicMetadataResponse_Success, first.GetResponse())
	assert.Equal(t, uint32(3), first.GetPartitions())
	second := meta("persistent://public/default/auto-b", 2)
	assert.Equal(t, proto.CommandPartitionedTopicMetadataResponse_Failed, second.GetResponse(), "3 + 3 partitions > 4")
	assert.Equal(t, proto.ServerError_MetadataError, second.GetError())
	assert.Contains(t, second.GetMessage(), engine.MsgMaxTopicsPerSpace)
	assert.Zero(t, b.eng.PartitionCount("persistent://public/default/auto-b"))

	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/auto-c/partitions?checkAllowAutoCreation=true", "")
	assert.Equal(t, http.StatusPreconditionFailed, code, body)
}

// TestAdminSubscriptionCreationHonoursMaxSubscriptions: the admin API's
// subscription creation is refused at the topic's max subscriptions (409).
func TestAdminSubscriptionCreationHonoursMaxSubscriptions(t *testing.T) {
	b := RunT(t, Options{Limits: Limits{MaxSubscriptionsPerTopic: 1}})
	base := "/admin/v2/persistent/public/default/subs-max"
	code, body := adminDo(t, b, http.MethodPut, base, "")
	require.Equal(t, http.StatusNoContent, code, body)
	code, body = adminDo(t, b, http.MethodPut, base+"/subscription/one", "")
	require.Equal(t, http.StatusNoContent, code, body)
	code, body = adminDo(t, b, http.MethodPut, base+"/subscription/two", "")
	assert.Equal(t, http.StatusConflict, code, body)
	assert.Contains(t, body, "Exceed the maximum number of subscriptions of the topic: persistent://public/default/subs-max")
}

// TestTopicsOfMissingNamespace: GET_TOPICS_OF_NAMESPACE for a namespace
// that does not exist lists no persistent topics, and is MetadataError
// "Namespace not found" for the modes that include non-persistent ones.
func TestTopicsOfMissingNamespace(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	ask := func(mode proto.CommandGetTopicsOfNamespace_Mode, rid uint64) *proto.BaseCommand {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE.Enum(), GetTopicsOfNamespace: &proto.CommandGetTopicsOfNamespace{
			RequestId: gproto.Uint64(rid), Namespace: gproto.String("public/nosuchns"), Mode: mode.Enum()}})
		for {
			f, err := c.next()
			require.NoError(t, err)
			if typ := f.Cmd.GetType(); typ == proto.BaseCommand_GET_TOPICS_OF_NAMESPACE_RESPONSE || typ == proto.BaseCommand_ERROR {
				return f.Cmd
			}
		}
	}
	ok := ask(proto.CommandGetTopicsOfNamespace_PERSISTENT, 1)
	require.Equal(t, proto.BaseCommand_GET_TOPICS_OF_NAMESPACE_RESPONSE, ok.GetType(), "%s", ok)
	assert.Empty(t, ok.GetGetTopicsOfNamespaceResponse().GetTopics())
	for _, mode := range []proto.CommandGetTopicsOfNamespace_Mode{proto.CommandGetTopicsOfNamespace_NON_PERSISTENT, proto.CommandGetTopicsOfNamespace_ALL} {
		e := ask(mode, 2)
		require.Equal(t, proto.BaseCommand_ERROR, e.GetType(), "%s", e)
		assert.Equal(t, proto.ServerError_MetadataError, e.GetError().GetError())
		assert.Contains(t, e.GetError().GetMessage(), "Namespace not found")
	}
}
