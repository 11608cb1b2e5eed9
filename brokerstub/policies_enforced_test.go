package brokerstub

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
)

// The namespace policy autoTopicCreation decides over the broker's
// allowAutoTopicCreation, both ways, and sets the type and partitions of the
// topics it creates; deleting it gives the broker's rule back.
func TestAutoTopicCreationOverride(t *testing.T) {
	b := RunT(t, Options{DisableAutoTopicCreation: true})
	const ns = "/admin/v2/namespaces/public/default/autoTopicCreation"
	a := askAll(t, b, "persistent://public/default/ato-off")
	require.Equal(t, proto.ServerError_TopicNotFound, a.lookup.GetError(), "broker key off: %v", a.lookup)
	require.Equal(t, proto.BaseCommand_ERROR, a.producer.GetType())

	postPolicy(t, b, ns, `{"allowAutoTopicCreation":true,"topicType":"non-partitioned"}`)
	a = askAll(t, b, "persistent://public/default/ato-on")
	require.Equal(t, proto.CommandLookupTopicResponse_Connect, a.lookup.GetResponse(), "override on: %v", a.lookup)
	require.Equal(t, uint32(0), a.meta.GetPartitions())
	require.Equal(t, proto.BaseCommand_PRODUCER_SUCCESS, a.producer.GetType(), "override on: %v", a.producer)

	postPolicy(t, b, ns, `{"allowAutoTopicCreation":true,"topicType":"partitioned","defaultNumPartitions":3}`)
	a = askAll(t, b, "persistent://public/default/ato-parts")
	require.Equal(t, uint32(3), a.meta.GetPartitions(), "partitioned override: %v", a.meta)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/ato-parts2/partitions?checkAllowAutoCreation=true", "")
	require.Equal(t, http.StatusOK, code, body)
	require.JSONEq(t, `{"partitions":3,"deleted":false}`, body)

	code, body = adminDo(t, b, http.MethodDelete, ns, "")
	require.Equal(t, http.StatusNoContent, code, body)
	a = askAll(t, b, "persistent://public/default/ato-off2")
	require.Equal(t, proto.ServerError_TopicNotFound, a.lookup.GetError(), "override removed: %v", a.lookup)

	on := RunT(t, Options{AutoTopicCreationPartitions: 2})
	postPolicy(t, on, ns, `{"allowAutoTopicCreation":false}`)
	a = askAll(t, on, "persistent://public/default/ato-refused")
	require.Equal(t, proto.ServerError_TopicNotFound, a.meta.GetError(), "override off over the broker's on: %v", a.meta)
	require.Equal(t, proto.BaseCommand_ERROR, a.producer.GetType(), "override off: %v", a.producer)
	postPolicy(t, on, ns, `{"allowAutoTopicCreation":true,"topicType":"non-partitioned"}`)
	a = askAll(t, on, "persistent://public/default/ato-flat")
	require.Equal(t, uint32(0), a.meta.GetPartitions(), "non-partitioned override over the broker's partitioned: %v", a.meta)
}

// The schema policies of a namespace and a topic override the broker's
// keys: the compatibility strategy (and the older auto-update strategy when
// it is UNDEFINED), isAllowAutoUpdateSchema and schemaValidationEnforced.
func TestSchemaPoliciesEnforced(t *testing.T) {
	b := RunT(t, Options{})
	c := dialSchema(t, b)
	const nsp = "/admin/v2/namespaces/public/default/"
	topic := func(n string) string { return "persistent://public/default/" + n }
	incompatible := func(what string, perr *proto.CommandError) {
		t.Helper()
		require.NotNil(t, perr, what)
		require.Equal(t, proto.ServerError_IncompatibleSchema, perr.GetError(), "%s: %v", what, perr)
	}
	_, perr := c.producer(topic("sp-ns"), 1, pbSchema(proto.Schema_Avro, avroV1))
	require.Nil(t, perr)

	postPolicy(t, b, nsp+"schemaCompatibilityStrategy", `"ALWAYS_INCOMPATIBLE"`)
	_, perr = c.producer(topic("sp-ns"), 2, pbSchema(proto.Schema_Avro, avroV2))
	incompatible("namespace ALWAYS_INCOMPATIBLE", perr)

	// The topic's strategy over the namespace's.
	_, perr = c.producer(topic("sp-topic"), 3, pbSchema(proto.Schema_Avro, avroV1))
	require.Nil(t, perr)
	postPolicy(t, b, "/admin/v2/persistent/public/default/sp-topic/schemaCompatibilityStrategy", `"ALWAYS_COMPATIBLE"`)
	_, perr = c.producer(topic("sp-topic"), 4, pbSchema(proto.Schema_Avro, avroBad))
	require.Nil(t, perr, "topic ALWAYS_COMPATIBLE over the namespace's ALWAYS_INCOMPATIBLE")

	// UNDEFINED at the namespace: the older auto-update strategy decides.
	postPolicy(t, b, nsp+"schemaCompatibilityStrategy", `"UNDEFINED"`)
	code, body := adminDo(t, b, http.MethodPut, nsp+"schemaAutoUpdateCompatibilityStrategy", `"AutoUpdateDisabled"`)
	require.Equal(t, http.StatusNoContent, code, body)
	_, perr = c.producer(topic("sp-ns"), 5, pbSchema(proto.Schema_Avro, avroV2))
	incompatible("AutoUpdateDisabled", perr)
	code, body = adminDo(t, b, http.MethodDelete, nsp+"schemaAutoUpdateCompatibilityStrategy", "")
	require.Equal(t, http.StatusNoContent, code, body)

	// isAllowAutoUpdateSchema=false: no new version from a producer, the
	// registered ones still attach.
	postPolicy(t, b, nsp+"isAllowAutoUpdateSchema", `false`)
	_, perr = c.producer(topic("sp-ns"), 6, pbSchema(proto.Schema_Avro, avroV2))
	incompatible("isAllowAutoUpdateSchema false", perr)
	_, perr = c.producer(topic("sp-ns"), 7, pbSchema(proto.Schema_Avro, avroV1))
	require.Nil(t, perr, "a registered schema with auto update off")
	postPolicy(t, b, nsp+"isAllowAutoUpdateSchema", `true`)
	_, perr = c.producer(topic("sp-ns"), 8, pbSchema(proto.Schema_Avro, avroV2))
	require.Nil(t, perr, "auto update on again, FULL: a compatible new version")

	// schemaValidationEnforced: a producer without a schema is refused on
	// a topic with one, at the namespace and at the topic level.
	_, perr = c.producer(topic("sp-ns"), 9, nil)
	require.Nil(t, perr, "no schema, not enforced")
	postPolicy(t, b, nsp+"schemaValidationEnforced", `true`)
	_, perr = c.producer(topic("sp-ns"), 10, nil)
	incompatible("namespace schemaValidationEnforced", perr)
	require.Contains(t, perr.GetMessage(), "Producers cannot connect or send message without a schema to topics with a schema if SchemaValidationEnforced is enabled")
	postPolicy(t, b, "/admin/v2/persistent/public/default/sp-ns/schemaValidationEnforced", `false`)
	_, perr = c.producer(topic("sp-ns"), 11, nil)
	require.Nil(t, perr, "topic schemaValidationEnforced=false over the namespace's")
}

// subscriptionAuthMode Prefix: with authorization on, a role that is not a
// super user or tenant admin may only use subscriptions whose name starts
// with its role, refused with AuthorizationError and Pulsar's text.
func TestSubscriptionAuthModePrefix(t *testing.T) {
	b := newAuthzBroker(t, "")
	const topic = "persistent://private/auth/t"
	require.True(t, b.as("consumer").subscribe(topic, "s"), "mode None: any name")
	code, body := b.do("admin", http.MethodPost, "/admin/v2/namespaces/private/auth/subscriptionAuthMode", `"Prefix"`)
	require.Equal(t, http.StatusNoContent, code, body)

	c := b.as("consumer")
	refused(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true), proto.ServerError_AuthorizationError,
		"org.apache.pulsar.broker.PulsarServerException: Failed to create consumer - The subscription name needs to be prefixed by the authentication role, like consumer-xxxx for topic: "+topic)
	require.Nil(t, c.sub(topic, "consumer-s", proto.CommandSubscribe_Shared, 2, true), "prefixed by the role")
	require.True(t, b.as("tadmin").subscribe(topic, "s"), "a tenant admin is not held to the prefix")
	require.True(t, b.as("admin").subscribe(topic, "s2"), "a super user is not held to the prefix")
	require.False(t, b.as("nobody").subscribe(topic, "nobody-s"), "the prefix grants nothing")

	code, body = b.do("admin", http.MethodPost, "/admin/v2/namespaces/private/auth/subscriptionAuthMode", `"None"`)
	require.Equal(t, http.StatusNoContent, code, body)
	require.True(t, b.as("consumer").subscribe(topic, "s"), "mode None again")
}
