package integration

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/admin/config"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// authzEnv is a stub with token authentication and authorization (the
// setup of secureStub) and the official admin client as the super user.
type authzEnv struct {
	b      *brokerstub.Broker
	secret []byte
	admin  pulsaradmin.Client
}

func newAuthzEnv(t *testing.T) *authzEnv {
	t.Helper()
	secret := []byte("official authorization secret")
	tok, err := brokerstub.NewTokenProvider(brokerstub.TokenOptions{SecretKey: secret})
	require.NoError(t, err)
	b := secureStub(t, brokerstub.Options{AuthenticationProviders: []brokerstub.AuthenticationProvider{tok}},
		"Bearer "+hs256Token(t, secret, "admin"))
	return &authzEnv{b: b, secret: secret, admin: adminAs(t, b, hs256Token(t, secret, "admin"))}
}

// adminAs is the official admin client with token.
func adminAs(t *testing.T, b *brokerstub.Broker, token string) pulsaradmin.Client {
	t.Helper()
	a, err := pulsaradmin.NewClient(&config.Config{WebServiceURL: b.WebServiceURL(), Token: token})
	require.NoError(t, err)
	return a
}

// client is the official client as role.
func (e *authzEnv) client(t *testing.T, role string) official.Client {
	t.Helper()
	return secClient(t, official.ClientOptions{URL: e.b.URL(), Authentication: official.NewAuthenticationToken(hs256Token(t, e.secret, role))})
}

func TestOfficialTopicLevelPermissions(t *testing.T) {
	e := newAuthzEnv(t)
	base := "persistent://private/auth/" + strings.ReplaceAll(t.Name(), "/", "-")
	granted, other := topicName(t, base+"-granted"), topicName(t, base+"-other")

	require.NoError(t, e.admin.Topics().GrantPermission(granted, "topic-writer", []utils.AuthAction{utils.AuthAction("produce")}))
	perms, err := e.admin.Topics().GetPermissions(granted)
	require.NoError(t, err)
	assert.Equal(t, []utils.AuthAction{utils.AuthAction("produce")}, perms["topic-writer"])
	got := perms["token-principal"]
	slices.Sort(got)
	assert.Equal(t, []utils.AuthAction{utils.AuthAction("consume"), utils.AuthAction("produce")}, got, "the namespace's grants are part of the topic's")

	writer := e.client(t, "topic-writer")
	p, err := writer.CreateProducer(official.ProducerOptions{Topic: granted.String()})
	require.NoError(t, err, "produce granted on the topic")
	_, err = p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("topic grant")})
	require.NoError(t, err)
	p.Close()
	refused(t, e.b, writer, other.String(), "AuthorizationError")
	_, err = writer.Subscribe(official.ConsumerOptions{Topic: granted.String(), SubscriptionName: "s"})
	require.Error(t, err, "consume is not granted")
	assert.Contains(t, err.Error(), "AuthorizationError")

	// The message produced under the topic grant reaches a consumer of the
	// namespace grant.
	cons, err := e.client(t, "token-principal").Subscribe(official.ConsumerOptions{Topic: granted.String(),
		SubscriptionName: "s", SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	defer cons.Close()
	assert.Equal(t, "topic grant", string(receiveN(t, cons, 1)[0].Payload()))

	// Only tenant admins manage a topic's permissions: others get 401, as
	// Pulsar's validateAdminAccessForTenant answers.
	wantStatus(t, adminAs(t, e.b, hs256Token(t, e.secret, "topic-writer")).Topics().GrantPermission(granted, "topic-writer",
		[]utils.AuthAction{utils.AuthAction("consume")}), http.StatusUnauthorized, "grant by a non-admin")

	require.NoError(t, e.admin.Topics().RevokePermission(granted, "topic-writer"))
	refused(t, e.b, e.client(t, "topic-writer"), granted.String(), "AuthorizationError")
	wantStatus(t, e.admin.Topics().RevokePermission(granted, "topic-writer"), http.StatusPreconditionFailed, "revoke twice")
	wantStatus(t, e.admin.Topics().RevokePermission(granted, "token-principal"), http.StatusPreconditionFailed, "revoke a namespace grant on a topic")
}

// TestOfficialTopicListAuthorization: listing a namespace's topics (the
// official client's pattern consumer over GET_TOPICS_OF_NAMESPACE, and
// the admin API's list) needs a namespace grant, as Pulsar's GET_TOPICS.
func TestOfficialTopicListAuthorization(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	e := newAuthzEnv(t)
	topic := topicName(t, "persistent://private/auth/"+strings.ReplaceAll(t.Name(), "/", "-"))
	require.NoError(t, e.admin.Topics().Create(topic, 0))
	require.NoError(t, e.admin.Topics().GrantPermission(topic, "topic-only", []utils.AuthAction{utils.AuthAction("consume"), utils.AuthAction("produce")}))
	ns := mustNamespace(t, "private/auth")

	_, list, err := adminAs(t, e.b, hs256Token(t, e.secret, "token-principal")).Topics().List(*ns)
	require.NoError(t, err)
	assert.Contains(t, list, topic.String())
	_, _, err = adminAs(t, e.b, hs256Token(t, e.secret, "topic-only")).Topics().List(*ns)
	wantStatus(t, err, http.StatusForbidden, "topic list with a topic grant only")

	pattern := "persistent://private/auth/" + strings.ReplaceAll(t.Name(), "/", "-") + ".*"
	cons, err := e.client(t, "token-principal").Subscribe(official.ConsumerOptions{TopicsPattern: pattern, SubscriptionName: "s"})
	require.NoError(t, err)
	cons.Close()
	_, err = e.client(t, "topic-only").Subscribe(official.ConsumerOptions{TopicsPattern: pattern, SubscriptionName: "s"})
	require.Error(t, err, "a pattern consumer lists the namespace")
	assert.Contains(t, err.Error(), "AuthorizationError")

	// The topic itself is open to the topic grant.
	roundTrip(t, e.client(t, "topic-only"), topic.String())
}
