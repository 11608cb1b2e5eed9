package integration

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
)

// Namespace policies that a client sees the effect of (issue 32): the
// autoTopicCreation override and the schema policies, with the official Go
// client and with pulsargo. They run against a real Pulsar too
// (PULSARGO_TEST_URL and PULSARGO_TEST_ADMIN_URL).

const (
	userAvroV1 = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"}]}`
	userAvroV2 = `{"type":"record","name":"User","fields":[{"name":"name","type":"string"},{"name":"age","type":"int","default":0}]}`
)

// autoTopicCreation {"allowAutoTopicCreation":false} refuses a producer on a
// topic that does not exist whatever the broker's allowAutoTopicCreation;
// a partitioned override creates the topic with its partitions.
func TestRefusalAutoTopicCreationPolicy(t *testing.T) {
	e := newAdminEnv(t)
	ns := newPolicyNamespace(t, e, "autotopic")
	path := e.web + "/admin/v2/namespaces/" + ns + "/autoTopicCreation"
	require.Equal(t, http.StatusNoContent, httpDo(t, http.MethodPost, path, `{"allowAutoTopicCreation":false}`))
	oc := officialClient(t, e.url)
	sc := shortClient(t, e.url)
	topic := "persistent://" + ns + "/t"
	eventually(t, "producer refused", func() error {
		p, err := oc.CreateProducer(producerOpts(topic))
		if err == nil {
			p.Close()
			return errors.New("producer accepted")
		}
		return nil
	})
	_, err := oc.CreateProducer(producerOpts(topic))
	refusedWith(t, err, "TopicNotFound", "")
	_, err = sc.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	assert.ErrorIs(t, err, pulsar.ErrTopicNotfound)

	require.Equal(t, http.StatusNoContent, httpDo(t, http.MethodPost, path,
		`{"allowAutoTopicCreation":true,"topicType":"partitioned","defaultNumPartitions":2}`))
	parts := "persistent://" + ns + "/parts"
	eventually(t, "partitioned producer", func() error {
		p, err := oc.CreateProducer(producerOpts(parts))
		if err != nil {
			return err
		}
		p.Close()
		return nil
	})
	meta, err := e.admin.Topics().GetMetadata(topicName(t, parts))
	require.NoError(t, err)
	assert.Equal(t, 2, meta.Partitions)
	p, err := sc.CreateProducer(pulsar.ProducerOptions{Topic: "persistent://" + ns + "/parts2"})
	require.NoError(t, err)
	p.Close()
	meta, err = e.admin.Topics().GetMetadata(topicName(t, "persistent://"+ns+"/parts2"))
	require.NoError(t, err)
	assert.Equal(t, 2, meta.Partitions, "created by pulsargo")
}

// schemaValidationEnforced: a producer without a schema is refused on a
// topic that has one; isAllowAutoUpdateSchema=false: a producer's new
// schema version is refused, the registered one attaches.
func TestRefusalSchemaPolicies(t *testing.T) {
	e := newAdminEnv(t)
	ns := policyNamespace(t, e, "schemapol", map[string]string{"schemaValidationEnforced": "true", "isAllowAutoUpdateSchema": "false"})
	oc := officialClient(t, e.url)
	sc := shortClient(t, e.url)
	topic := "persistent://" + ns + "/t"
	require.NoError(t, e.admin.Schemas().CreateSchemaByPayload(topic, utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userAvroV1}))

	p, err := oc.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userAvroV1, nil)})
	require.NoError(t, err, "the registered schema")
	p.Close()
	_, err = oc.CreateProducer(producerOpts(topic))
	refusedWith(t, err, "IncompatibleSchema", "Producers cannot connect or send message without a schema to topics with a schema if SchemaValidationEnforced is enabled")
	_, err = sc.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	sdkRefused(t, err, "IncompatibleSchema", "SchemaValidationEnforced")

	_, err = oc.CreateProducer(official.ProducerOptions{Topic: topic, Schema: official.NewAvroSchema(userAvroV2, nil)})
	refusedWith(t, err, "IncompatibleSchema", "")
	_, err = sc.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userAvroV2, nil)})
	var se *pulsar.ServerError
	require.ErrorAs(t, err, &se, "%v", err)
	assert.Equal(t, "IncompatibleSchema", se.Code)
	sp, err := sc.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userAvroV1, nil)})
	require.NoError(t, err, "pulsargo, the registered schema")
	sp.Close()
}

// subscriptionAuthMode Prefix: with authorization on, a role may only
// subscribe with a subscription named after it. Needs a broker with token
// authentication and authorization: stub only.
func TestRefusalSubscriptionAuthModePrefix(t *testing.T) {
	secret := []byte("subscription auth mode secret")
	tok, err := brokerstub.NewTokenProvider(brokerstub.TokenOptions{SecretKey: secret})
	require.NoError(t, err)
	adminAuth := "Bearer " + hs256Token(t, secret, "admin")
	b := secureStub(t, brokerstub.Options{AuthenticationProviders: []brokerstub.AuthenticationProvider{tok}}, adminAuth)
	req, err := http.NewRequest(http.MethodPost, b.WebServiceURL()+"/admin/v2/namespaces/private/auth/subscriptionAuthMode", strings.NewReader(`"Prefix"`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", adminAuth)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	const role = "token-principal"
	topic := "persistent://private/auth/" + t.Name()
	const text = "The subscription name needs to be prefixed by the authentication role, like token-principal-xxxx for topic: "
	oc := secClient(t, official.ClientOptions{URL: b.URL(), Authentication: official.NewAuthenticationToken(hs256Token(t, secret, role))})
	_, err = oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	refusedWith(t, err, "AuthorizationError", text+topic)
	c, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: role + "-s"})
	require.NoError(t, err, "prefixed by the role")
	c.Close()

	sc, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Logger: sdkLogger(),
		Authentication: pulsar.NewAuthenticationToken(hs256Token(t, secret, role))})
	require.NoError(t, err)
	defer sc.Close()
	_, err = sc.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	sdkRefused(t, err, "AuthorizationError", text+topic)
	sco, err := sc.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: role + "-s2"})
	require.NoError(t, err, "pulsargo, prefixed by the role")
	sco.Close()
}
