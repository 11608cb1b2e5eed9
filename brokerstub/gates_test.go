package brokerstub

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// attachWith attaches producer id to topic, encrypting or not, and returns
// the broker's error, or nil for PRODUCER_SUCCESS.
func (c *rawClient) attachWith(topic string, id uint64, encrypted bool) *proto.CommandError {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: &id, RequestId: gproto.Uint64(500 + id), Encrypted: &encrypted}})
	return errorOf(c.answer())
}

// subscriptionTypesEnabled: the broker's list, the namespace policy over
// it, the topic policy over both; Key_Shared switched off beats them all.
// Refusals are NotAllowedError with Pulsar's texts.
func TestSubscriptionTypesEnabled(t *testing.T) {
	b := RunT(t, Options{Gates: Gates{SubscriptionTypesEnabled: []string{"Exclusive", "Failover"}}})
	c := dialRaw(t, b)
	c.connect()
	const topic = "persistent://public/default/sub-types"
	require.Nil(t, c.sub(topic, "a", proto.CommandSubscribe_Exclusive, 1, true))
	refused(t, c.sub(topic, "b", proto.CommandSubscribe_Shared, 2, true), proto.ServerError_NotAllowedError,
		"Topic[{persistent://public/default/sub-types}] doesn't support Shared sub type!")
	refused(t, c.sub(topic, "r", proto.CommandSubscribe_Key_Shared, 3, false), proto.ServerError_NotAllowedError,
		"Topic[{persistent://public/default/sub-types}] doesn't support Key_Shared sub type!")

	postPolicy(t, b, "/admin/v2/namespaces/public/default/subscriptionTypesEnabled", `["Shared"]`)
	require.Nil(t, c.sub(topic, "b", proto.CommandSubscribe_Shared, 4, true), "the namespace's list over the broker's")
	refused(t, c.sub(topic, "c", proto.CommandSubscribe_Failover, 5, true), proto.ServerError_NotAllowedError,
		"Topic[{persistent://public/default/sub-types}] doesn't support Failover sub type!")

	postPolicy(t, b, "/admin/v2/persistent/public/default/sub-types/subscriptionTypesEnabled", `["Failover"]`)
	require.Nil(t, c.sub(topic, "c", proto.CommandSubscribe_Failover, 6, true), "the topic's list over the namespace's")
	refused(t, c.sub(topic, "d", proto.CommandSubscribe_Shared, 7, true), proto.ServerError_NotAllowedError,
		"Topic[{persistent://public/default/sub-types}] doesn't support Shared sub type!")

	t.Run("Key_Shared off", func(t *testing.T) {
		b := RunT(t, Options{Gates: Gates{DisableKeyShared: true}})
		c := dialRaw(t, b)
		c.connect()
		postPolicy(t, b, "/admin/v2/namespaces/public/default/subscriptionTypesEnabled", `["Key_Shared","Shared"]`)
		refused(t, c.sub("persistent://public/default/ks", "s", proto.CommandSubscribe_Key_Shared, 1, true),
			proto.ServerError_NotAllowedError, "Key_Shared subscription is disabled by broker.")
		require.Nil(t, c.sub("persistent://public/default/ks", "s", proto.CommandSubscribe_Shared, 2, true))
	})
	t.Run("unknown type", func(t *testing.T) {
		_, err := Start(Options{Gates: Gates{SubscriptionTypesEnabled: []string{"Shard"}}})
		require.ErrorContains(t, err, `unknown subscription type "Shard"`)
	})
}

// enablePersistentTopics=false: producers and consumers of persistent
// topics are refused; non-persistent topics still work.
func TestPersistentTopicsOff(t *testing.T) {
	b := RunT(t, Options{Gates: Gates{DisablePersistentTopics: true}})
	c := dialRaw(t, b)
	c.connect()
	refused(t, c.attach("persistent://public/default/p", 1), proto.ServerError_NotAllowedError, "Broker is unable to load persistent topic")
	refused(t, c.sub("persistent://public/default/p", "s", proto.CommandSubscribe_Shared, 2, true),
		proto.ServerError_NotAllowedError, "Broker is unable to load persistent topic")
	require.Nil(t, c.attach("non-persistent://public/default/np", 3))
}

// encryptionRequireOnProducer refuses producers that do not encrypt; the
// namespace's encryption_required does too, and refuses each message
// without encryption keys (Pulsar's Producer.checkAndStartPublish).
func TestEncryptionRequired(t *testing.T) {
	t.Run("broker", func(t *testing.T) {
		b := RunT(t, Options{Gates: Gates{EncryptionRequireOnProducer: true}})
		c := dialRaw(t, b)
		c.connect()
		refused(t, c.attachWith("persistent://public/default/enc", 1, false), proto.ServerError_MetadataError,
			"Encryption is required in persistent://public/default/enc")
		require.Nil(t, c.attachWith("persistent://public/default/enc", 2, true))
	})
	t.Run("namespace", func(t *testing.T) {
		b := RunT(t)
		c := dialKS(t, b)
		const topic = "persistent://public/default/enc-ns"
		p := c.producer(topic, 1) // before the policy: attached, unencrypted
		postPolicy(t, b, "/admin/v2/namespaces/public/default/encryptionRequired", "true")
		refused(t, c.attachWith(topic, 2, false), proto.ServerError_MetadataError, "Encryption is required in "+topic)
		require.Nil(t, c.attachWith(topic, 3, true))

		seq := uint64(7)
		md := &proto.MessageMetadata{ProducerName: &p.name, SequenceId: &seq, PublishTime: gproto.Uint64(1)}
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: &p.id, SequenceId: &seq, NumMessages: gproto.Int32(1)}}, md, []byte("plain"))
		se := c.readUntil(proto.BaseCommand_SEND_ERROR).GetSendError()
		assert.Equal(t, proto.ServerError_MetadataError, se.GetError())
		assert.Equal(t, "Messages must be encrypted", se.GetMessage())
		assert.Equal(t, seq, se.GetSequenceId())

		md.EncryptionKeys = []*proto.EncryptionKeys{{Key: gproto.String("k"), Value: []byte("v")}}
		p.sendMeta(md, "sealed") // a receipt
		postPolicy(t, b, "/admin/v2/namespaces/public/default/encryptionRequired", "false")
		p.Send("", "plain again")
	})
}

// maxSameAddressProducersPerTopic and maxSameAddressConsumersPerTopic count
// the clients of one IP on one topic, whatever their connection.
func TestSameAddressLimits(t *testing.T) {
	b := RunT(t, Options{Gates: Gates{MaxSameAddressProducersPerTopic: 2, MaxSameAddressConsumersPerTopic: 1}})
	c1, c2 := dialRaw(t, b), dialRaw(t, b)
	c1.connect()
	c2.connect()
	const topic = "persistent://public/default/same-addr"
	require.Nil(t, c1.attach(topic, 1))
	require.Nil(t, c2.attach(topic, 2))
	refused(t, c1.attach(topic, 3), proto.ServerError_ProducerBusy,
		"Topic 'persistent://public/default/same-addr' reached max same address producers limit")
	require.Nil(t, c1.attach("persistent://public/default/same-addr-other", 4), "another topic")

	require.Nil(t, c1.sub(topic, "a", proto.CommandSubscribe_Shared, 5, true))
	refused(t, c2.sub(topic, "b", proto.CommandSubscribe_Shared, 6, true), proto.ServerError_ConsumerBusy,
		"Topic reached max same address consumers limit")
}

// schemaRegistryCompatibilityCheckers: Pulsar's default set (any order,
// with the checker of EXTERNAL schemas or without) is accepted; another is
// refused at start with what to change.
func TestSchemaRegistryCompatibilityCheckers(t *testing.T) {
	const pkg = "org.apache.pulsar.broker.service.schema."
	for _, ok := range []string{
		pkg + "JsonSchemaCompatibilityCheck," + pkg + "AvroSchemaCompatibilityCheck," + pkg + "ProtobufNativeSchemaCompatibilityCheck",
		pkg + "ProtobufNativeSchemaCompatibilityCheck, " + pkg + "AvroSchemaCompatibilityCheck," + pkg + "JsonSchemaCompatibilityCheck," + pkg + "ExternalSchemaCompatibilityCheck",
	} {
		_, err := ParseConfig(strings.NewReader("schemaRegistryCompatibilityCheckers=" + ok))
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{
		pkg + "JsonSchemaCompatibilityCheck," + pkg + "AvroSchemaCompatibilityCheck",
		pkg + "JsonSchemaCompatibilityCheck," + pkg + "AvroSchemaCompatibilityCheck," + pkg + "ProtobufNativeSchemaCompatibilityCheck,com.example.MyCheck",
	} {
		_, err := ParseConfig(strings.NewReader("schemaRegistryCompatibilityCheckers=" + bad))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "schemaRegistryCompatibilityCheckers=")
		assert.Contains(t, err.Error(), "remove the key or list exactly")
	}
}

// ParseConfig sets Gates from Pulsar's keys, with Pulsar's meaning of 0.
func TestConfigGates(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader(strings.Join([]string{
		"subscriptionTypesEnabled=Exclusive, Key_Shared", "subscriptionKeySharedEnable=false",
		"enablePersistentTopics=false", "encryptionRequireOnProducer=true",
		"maxSameAddressProducersPerTopic=3", "maxSameAddressConsumersPerTopic=4",
		"subscriptionRedeliveryTrackerEnabled=false", "maxUnackedMessagesPerBroker=1000",
		"maxUnackedMessagesPerSubscriptionOnBrokerBlocked=0", "dispatcherMaxRoundRobinBatchSize=0",
		"aggregatePublisherStatsByProducerName=true", "clientLibraryVersionCheckEnabled=true",
		"maxActiveTransactionsPerCoordinator=5", "maxConcurrentNonPersistentMessagePerConnection=0",
	}, "\n")))
	require.NoError(t, err)
	assert.Empty(t, cfg.Ignored)
	assert.Equal(t, Gates{
		SubscriptionTypesEnabled: []string{"Exclusive", "Key_Shared"}, DisableKeyShared: true,
		DisablePersistentTopics: true, EncryptionRequireOnProducer: true,
		MaxSameAddressProducersPerTopic: 3, MaxSameAddressConsumersPerTopic: 4,
		DisableRedeliveryTracker: true, MaxUnackedMessagesPerBroker: 1000,
		MaxUnackedMessagesPerSubscriptionOnBrokerBlocked: -1, DispatcherMaxRoundRobinBatchSize: 1,
		AggregatePublisherStatsByProducerName: true, ClientLibraryVersionCheckEnabled: true,
		MaxActiveTransactionsPerCoordinator: 5, MaxConcurrentNonPersistentMessagePerConnection: -1,
	}, cfg.Options.Gates)
	_, err = ParseConfig(strings.NewReader("subscriptionTypesEnabled=Shared,Exclusiv"))
	assert.ErrorContains(t, err, "subscriptionTypesEnabled=Shared,Exclusiv")
	if d := (Options{}).withDefaults().Gates; d.DispatcherMaxRoundRobinBatchSize != 20 ||
		d.MaxConcurrentNonPersistentMessagePerConnection != 1000 || d.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked != 0.16 {
		t.Errorf("defaults: %+v", d)
	}
}

// clientLibraryVersionCheckEnabled: the partitioned metadata of a topic of
// more than one partition is refused (405) to a request without a
// User-Agent and to a C++ client older than 1.21.
func TestClientLibraryVersionCheck(t *testing.T) {
	b := RunT(t, Options{Gates: Gates{ClientLibraryVersionCheckEnabled: true}})
	require.NoError(t, b.CreatePartitionedTopic("persistent://public/default/cv", 2))
	get := func(path, ua string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, b.WebServiceURL()+path, nil)
		require.NoError(t, err)
		req.Header["User-Agent"] = []string{ua} // "" sends none
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	const path = "/admin/v2/persistent/public/default/cv/partitions"
	code, body := get(path, "")
	assert.Equal(t, http.StatusMethodNotAllowed, code)
	assert.Contains(t, body, "version in user-agent is not present")
	code, body = get(path, "Pulsar-CPP-v1.20")
	assert.Equal(t, http.StatusMethodNotAllowed, code)
	assert.Contains(t, body, "version Pulsar-CPP-v1.20 is not supported")
	code, _ = get(path, "Pulsar-CPP-v2.21-pre")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get(path, "Pulsar-Go-version:0.19.0")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get("/admin/v2/persistent/public/default/not-partitioned/partitions", "")
	assert.Equal(t, http.StatusOK, code, "no check under two partitions")
}
