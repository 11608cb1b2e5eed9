package brokerstub

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// nsAnswers is what the broker answers, on one connection, to a lookup, a
// partitioned-metadata request, a producer and a reader (non-durable
// subscription) on topic.
type nsAnswers struct {
	lookup   *proto.CommandLookupTopicResponse
	meta     *proto.CommandPartitionedTopicMetadataResponse
	producer *proto.BaseCommand
	reader   *proto.BaseCommand
}

func askAll(t *testing.T, b *Broker, topic string) nsAnswers {
	t.Helper()
	c := dialRaw(t, b)
	c.connect()
	var a nsAnswers
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: &proto.CommandLookupTopic{
		Topic: gproto.String(topic), RequestId: gproto.Uint64(1)}})
	a.lookup = c.expect(proto.BaseCommand_LOOKUP_RESPONSE).GetLookupTopicResponse()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
		Topic: gproto.String(topic), RequestId: gproto.Uint64(2)}})
	a.meta = c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE).GetPartitionMetadataResponse()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: gproto.String(topic), ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(3)}})
	a.producer = c.answer()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: gproto.String(topic), Subscription: gproto.String("reader-1"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(4), Durable: gproto.Bool(false), ForceTopicCreation: gproto.Bool(true),
		StartMessageId: &proto.MessageIdData{LedgerId: gproto.Uint64(^uint64(0)), EntryId: gproto.Uint64(^uint64(0))}}})
	a.reader = c.answer()
	return a
}

// answer reads the next frame that answers a request (skipping pings and
// what the broker sends on its own).
func (c *rawClient) answer() *proto.BaseCommand {
	c.t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for an answer: %v", err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_PRODUCER_SUCCESS, proto.BaseCommand_SUCCESS, proto.BaseCommand_ERROR:
			return f.Cmd
		}
	}
}

// A topic of a tenant or namespace that does not exist is refused as a
// Pulsar 4.x broker refuses it: binary lookup MetadataError, partitioned
// metadata TopicNotFound "Namespace not found", producer and reader
// ServiceNotReady, HTTP lookup 404; and nothing is created.
func TestMissingNamespaceIsRefused(t *testing.T) {
	b := RunT(t)
	for _, topic := range []string{
		"persistent://nosuchtenant/ns/t", "persistent://public/nosuchns/t",
		"non-persistent://nosuchtenant/ns/t", "public/nosuchns/short-form",
	} {
		t.Run(strings.ReplaceAll(topic, "/", "_"), func(t *testing.T) {
			name, err := engine.ParseTopic(topic)
			require.NoError(t, err)
			a := askAll(t, b, topic)
			assert.Equal(t, proto.CommandLookupTopicResponse_Failed, a.lookup.GetResponse())
			assert.Equal(t, proto.ServerError_MetadataError, a.lookup.GetError())
			assert.Equal(t, "org.apache.pulsar.broker.web.RestException: Namespace not found", a.lookup.GetMessage())

			assert.Equal(t, proto.CommandPartitionedTopicMetadataResponse_Failed, a.meta.GetResponse())
			assert.Equal(t, proto.ServerError_TopicNotFound, a.meta.GetError())
			assert.Equal(t, "Namespace not found", a.meta.GetMessage())

			for what, cmd := range map[string]*proto.BaseCommand{"producer": a.producer, "reader": a.reader} {
				require.Equal(t, proto.BaseCommand_ERROR, cmd.GetType(), "%s: %s", what, cmd)
				assert.Equal(t, proto.ServerError_ServiceNotReady, cmd.GetError().GetError(), what)
				assert.Contains(t, cmd.GetError().GetMessage(), "Request is denied: namespace="+name.Namespace, what)
			}

			code, body := adminDo(t, b, http.MethodGet, "/lookup/v2/topic/"+strings.Replace(name.Full, "://", "/", 1), "")
			assert.Equal(t, http.StatusNotFound, code)
			assert.JSONEq(t, `{"reason":"Namespace not found"}`, body)

			assert.False(t, b.eng.TopicExists(name), "the refused topic was created")
			assert.False(t, b.eng.Pol().HasNamespace(name.Namespace), "the namespace was created")
		})
	}
}

// The namespaces a broker starts with are public/default and pulsar/system;
// a namespace created with CreateNamespace (or the admin API) serves at
// once.
func TestCreatedNamespaceServes(t *testing.T) {
	b := RunT(t)
	for _, ns := range []string{"public/default", "pulsar/system"} {
		assert.True(t, b.eng.Pol().HasNamespace(ns), ns)
	}
	require.NoError(t, b.CreateNamespace("acme/orders"))
	require.NoError(t, b.CreateNamespace("acme/orders"), "creating it again is a no-op")
	require.Error(t, b.CreateNamespace("no-slash"))
	a := askAll(t, b, "persistent://acme/orders/t")
	assert.Equal(t, proto.CommandLookupTopicResponse_Connect, a.lookup.GetResponse(), "%s", a.lookup)
	assert.Equal(t, proto.CommandPartitionedTopicMetadataResponse_Success, a.meta.GetResponse(), "%s", a.meta)
	assert.Equal(t, proto.BaseCommand_PRODUCER_SUCCESS, a.producer.GetType(), "%s", a.producer)
	assert.Equal(t, proto.BaseCommand_SUCCESS, a.reader.GetType(), "%s", a.reader)
}

// Options.AutoCreateNamespaces creates a missing tenant and namespace on
// first use; the admin API then lists them.
func TestAutoCreateNamespacesOption(t *testing.T) {
	b := RunT(t, Options{AutoCreateNamespaces: true})
	a := askAll(t, b, "persistent://fresh/ns1/t")
	assert.Equal(t, proto.CommandLookupTopicResponse_Connect, a.lookup.GetResponse(), "%s", a.lookup)
	assert.Equal(t, proto.BaseCommand_PRODUCER_SUCCESS, a.producer.GetType(), "%s", a.producer)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/fresh", "")
	require.Equal(t, http.StatusOK, code, body)
	var nss []string
	require.NoError(t, json.Unmarshal([]byte(body), &nss))
	assert.Equal(t, []string{"fresh/ns1"}, nss)
	code, _ = adminDo(t, b, http.MethodGet, "/lookup/v2/topic/persistent/fresh/ns2/t", "")
	assert.Equal(t, http.StatusOK, code, "HTTP lookup creates it too")
	assert.True(t, b.eng.Pol().HasNamespace("fresh/ns2"))
}
