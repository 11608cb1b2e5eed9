package pulsar

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// These tests run pulsargo clients against brokerstub's own providers
// (token with tokenSecretKey or tokenPublicKey, TLS, basic) and its
// authorization, configured as a secured Pulsar is: every refusal must
// reach the application as a typed error.

const secNS = "sec/app"

// securedWithGrants is a secure broker with namespace sec/app open to
// "alice" (produce, consume), "writer" (produce) and "reader" (consume).
func securedWithGrants(t *testing.T, s jwtSigner) *secureBroker {
	t.Helper()
	b := newSecureBroker(t, s)
	b.newNamespace(t, secNS)
	b.grant(t, secNS, "alice", "produce", "consume")
	b.grant(t, secNS, "writer", "produce")
	b.grant(t, secNS, "reader", "consume")
	return b
}

// produceConsume subscribes, sends one message and receives it.
func produceConsume(t *testing.T, c Client, topic string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub"})
	if err != nil {
		return err
	}
	defer cons.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: topic})
	if err != nil {
		return err
	}
	defer p.Close()
	want := "secured " + topic
	if _, err := p.Send(ctx, &ProducerMessage{Payload: []byte(want)}); err != nil {
		return err
	}
	m, err := cons.Receive(ctx)
	if err != nil {
		return err
	}
	if string(m.Payload()) != want {
		return fmt.Errorf("received %q, want %q", m.Payload(), want)
	}
	return cons.Ack(m)
}

// requireServerError checks that err is the broker's refusal with code, a
// *ServerError that is not retriable.
func requireServerError(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	var se *ServerError
	require.ErrorAs(t, err, &se, "%v", err)
	assert.Equal(t, code, se.Code, "%v", err)
	assert.False(t, IsRetriable(err), "%s is not retriable: %v", code, err)
	assert.False(t, se.Retriable())
}

// requireConnectError checks that err is a TLS failure: ErrConnectionFailed
// (Result ConnectError) wrapping the x509 error of type T.
func requireConnectError[T error](t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConnectionFailed)
	var e *Error
	if assert.ErrorAs(t, err, &e) {
		assert.Equal(t, ConnectError, e.Result())
	}
	var x T
	assert.ErrorAs(t, err, &x, "%v", err)
	var se *ServerError
	assert.False(t, errors.As(err, &se), "a TLS failure is not the broker's answer")
}

func TestSecureStubToken(t *testing.T) {
	for _, s := range tokenSigners(t) {
		t.Run(s.alg, func(t *testing.T) {
			b := securedWithGrants(t, s)
			topic := "persistent://" + secNS + "/token-" + s.alg

			good := b.client(t, NewAuthenticationToken(s.sign(t, "alice", b.clock.Now().Add(time.Hour))))
			require.NoError(t, produceConsume(t, good, topic))

			var calls atomic.Int32
			supplied := b.client(t, NewAuthenticationTokenFromSupplier(func() (string, error) {
				calls.Add(1)
				return s.sign(t, "alice", time.Time{}), nil
			}))
			require.NoError(t, produceConsume(t, supplied, topic))
			assert.Positive(t, calls.Load())

			// Signed by another key of the same algorithm.
			other := tokenSigners(t)[0]
			if s.rsaKey != nil {
				other = tokenSigners(t)[1]
			} else {
				other.secret = []byte("another secret of thirty-two....")
			}
			forged := b.client(t, NewAuthenticationToken(other.sign(t, "alice", time.Time{})))
			err := roundTrip(t, forged, topic)
			requireServerError(t, err, "AuthenticationError")
			// Pulsar's one text for every refusal; the reason (a bad
			// signature) is in the broker's log only.
			assert.Contains(t, err.Error(), "Failed to authenticate")

			// Expired at the broker's (injected) clock, though not by the
			// wall clock: the stub's clock decides.
			b.clock.Advance(2 * time.Hour)
			expired := b.client(t, NewAuthenticationToken(s.sign(t, "alice", time.Now().Add(time.Hour))))
			err = roundTrip(t, expired, topic)
			requireServerError(t, err, "AuthenticationError")
			assert.Contains(t, err.Error(), "Failed to authenticate")

			// The first client's token has expired too: a new connection of
			// it would be refused, but its open one keeps working until the
			// broker's refresh check (TestSecureStubTokenRefreshOnChallenge).
			none := b.client(t, nil)
			requireServerError(t, roundTrip(t, none, topic), "AuthenticationError")
		})
	}
}

// TestSecureStubTokenRefreshOnChallenge: a token expires while connected;
// the stub's refresh check sends its own AUTH_CHALLENGE, the SDK answers
// with a fresh token from its supplier, and the producer and consumer keep
// working on the same connection. The clock is the broker's fake one.
func TestSecureStubTokenRefreshOnChallenge(t *testing.T) {
	s := tokenSigners(t)[0]
	b := securedWithGrants(t, s)
	topic := "persistent://" + secNS + "/refresh"

	var connects, challenges atomic.Int32
	responses := make(chan struct{}, 8)
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		switch {
		case ev.Type == brokerstub.CmdConnect:
			connects.Add(1)
		case ev.Type == "AUTH_CHALLENGE" && ev.Dir == brokerstub.Outbound:
			challenges.Add(1)
		case ev.Type == "AUTH_RESPONSE" && ev.Dir == brokerstub.Inbound:
			responses <- struct{}{}
		}
		return brokerstub.Action{}
	})
	const lifetime = 10 * time.Second
	var issued atomic.Int32
	supplier := func() (string, error) {
		issued.Add(1)
		return s.sign(t, "alice", b.clock.Now().Add(lifetime)), nil
	}
	c := b.client(t, NewAuthenticationTokenFromSupplier(supplier))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub"})
	require.NoError(t, err)
	defer cons.Close()
	p, err := c.CreateProducer(ProducerOptions{Topic: topic})
	require.NoError(t, err)
	defer p.Close()
	exchange := func(payload string) {
		t.Helper()
		_, err := p.Send(ctx, &ProducerMessage{Payload: []byte(payload)})
		require.NoError(t, err)
		m, err := cons.Receive(ctx)
		require.NoError(t, err)
		require.Equal(t, payload, string(m.Payload()))
		require.NoError(t, cons.Ack(m))
	}
	exchange("before expiry")
	require.EqualValues(t, 1, connects.Load())

	for round := 1; round <= 3; round++ {
		// Past the token's expiry: the next refresh check challenges.
		b.clock.Advance(lifetime + time.Second)
		select {
		case <-responses:
		case <-ctx.Done():
			t.Fatalf("round %d: no AUTH_RESPONSE to the broker's challenge", round)
		}
		// The response is handled on the connection's reader before the
		// SEND behind it, so once this round trip is done the broker holds
		// the fresh token; the next check must find it valid.
		exchange(fmt.Sprintf("after challenge %d", round))
		b.clock.Advance(time.Second)
		exchange(fmt.Sprintf("after check %d", round))
	}
	assert.EqualValues(t, 3, challenges.Load())
	assert.EqualValues(t, 1, connects.Load(), "the connection was kept, not re-made")
	assert.GreaterOrEqual(t, int(issued.Load()), 4, "one token per connect and per challenge")
}

// TestSecureStubChallengeAnsweredWithExpiredToken: a supplier that keeps
// answering the expired token gets the connection closed, and the
// reconnect is refused with AuthenticationError.
func TestSecureStubChallengeAnsweredWithExpiredToken(t *testing.T) {
	s := tokenSigners(t)[0]
	b := securedWithGrants(t, s)
	topic := "persistent://" + secNS + "/stale"
	tok := s.sign(t, "alice", b.clock.Now().Add(10*time.Second))
	closed := make(chan struct{})
	var once atomic.Bool
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		if ev.Type == "AUTH_RESPONSE" && ev.Dir == brokerstub.Inbound && once.CompareAndSwap(false, true) {
			close(closed)
		}
		return brokerstub.Action{}
	})
	c := b.client(t, NewAuthenticationTokenFromSupplier(func() (string, error) { return tok, nil }))
	require.NoError(t, roundTrip(t, c, topic))
	b.clock.Advance(11 * time.Second)
	<-closed
	// Every new connection is refused now; a new producer says why.
	requireServerError(t, roundTrip(t, c, topic+"-2"), "AuthenticationError")
}

func TestSecureStubTLSProvider(t *testing.T) {
	b := securedWithGrants(t, tokenSigners(t)[0])
	b.grant(t, secNS, "tls-role", "produce", "consume")
	topic := "persistent://" + secNS + "/mtls"

	_, certFile, keyFile := b.ca.issue(t, "tls-role", false)
	c := b.client(t, NewAuthenticationTLS(certFile, keyFile))
	require.NoError(t, produceConsume(t, c, topic))

	// The role is the certificate's CN: another CN has no grant.
	_, otherCert, otherKey := b.ca.issue(t, "tls-stranger", false)
	stranger := b.client(t, NewAuthenticationTLS(otherCert, otherKey))
	requireServerError(t, roundTrip(t, stranger, topic), "AuthorizationError")

	// A certificate without a CN proves no role.
	_, noCN, noCNKey := b.ca.issue(t, "", false)
	anon := b.client(t, NewAuthenticationTLS(noCN, noCNKey))
	requireServerError(t, roundTrip(t, anon, topic), "AuthenticationError")

	// A certificate of another CA fails the TLS handshake.
	_, foreignCert, foreignKey := newTestCA(t).issue(t, "tls-role", false)
	foreign := b.client(t, NewAuthenticationTLS(foreignCert, foreignKey))
	err := roundTrip(t, foreign, topic)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConnectionFailed)
}

func TestSecureStubBasicProvider(t *testing.T) {
	b := securedWithGrants(t, tokenSigners(t)[0])
	b.grant(t, secNS, "basic-user", "produce", "consume")
	topic := "persistent://" + secNS + "/basic"

	good, err := NewAuthenticationBasic("basic-user", "password")
	require.NoError(t, err)
	require.NoError(t, produceConsume(t, b.client(t, good), topic))

	bad, err := NewAuthenticationBasic("basic-user", "wrong")
	require.NoError(t, err)
	requireServerError(t, roundTrip(t, b.client(t, bad), topic), "AuthenticationError")
}

// TestSecureStubOAuth2: the issuer grants JWTs signed with the broker's
// key, as an OAuth2 server configured for a Pulsar cluster does.
func TestSecureStubOAuth2(t *testing.T) {
	s := tokenSigners(t)[1]
	b := securedWithGrants(t, s)
	iss := newFakeIssuer(t)
	role := "alice"
	iss.token = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, s.sign(t, role, time.Time{}))
	}
	require.NoError(t, produceConsume(t, b.client(t, NewAuthenticationOAuth2(iss.params(t))), "persistent://"+secNS+"/oauth2"))

	role = "nobody"
	requireServerError(t, roundTrip(t, b.client(t, NewAuthenticationOAuth2(iss.params(t))), "persistent://"+secNS+"/oauth2"), "AuthorizationError")
}

func TestSecureStubWrongCA(t *testing.T) {
	s := tokenSigners(t)[0]
	b := securedWithGrants(t, s)
	c := b.client(t, NewAuthenticationToken(s.sign(t, "alice", time.Time{})), func(o *ClientOptions) {
		o.TLSTrustCertsFilePath = newTestCA(t).file
	})
	requireConnectError[x509.UnknownAuthorityError](t, roundTrip(t, c, "persistent://"+secNS+"/wrong-ca"))

	// Without TLSValidateHostname the chain is still checked.
	c2 := b.client(t, NewAuthenticationToken(s.sign(t, "alice", time.Time{})), func(o *ClientOptions) {
		o.TLSTrustCertsFilePath, o.TLSValidateHostname = newTestCA(t).file, false
	})
	requireConnectError[x509.UnknownAuthorityError](t, roundTrip(t, c2, "persistent://"+secNS+"/wrong-ca"))
}

func TestSecureStubWrongHostname(t *testing.T) {
	s := tokenSigners(t)[0]
	b := securedWithGrants(t, s)
	// The broker's certificate is for 127.0.0.1; "localhost" reaches the
	// same listener under a name the certificate does not have.
	byName := strings.Replace(b.TLSURL(), "127.0.0.1", "localhost", 1)
	tok := NewAuthenticationToken(s.sign(t, "alice", time.Time{}))
	c := b.client(t, tok, func(o *ClientOptions) { o.URL = byName })
	requireConnectError[x509.HostnameError](t, roundTrip(t, c, "persistent://"+secNS+"/wrong-host"))

	// Without TLSValidateHostname the name is not checked, as the official
	// client's default.
	lax := b.client(t, tok, func(o *ClientOptions) { o.URL, o.TLSValidateHostname = byName, false })
	require.NoError(t, roundTrip(t, lax, "persistent://"+secNS+"/wrong-host"))
}

func TestSecureStubNoPermission(t *testing.T) {
	s := tokenSigners(t)[0]
	b := securedWithGrants(t, s)
	topic := "persistent://" + secNS + "/perm"
	as := func(role string) Client { return b.client(t, NewAuthenticationToken(s.sign(t, role, time.Time{}))) }

	reader := as("reader")
	_, err := reader.CreateProducer(ProducerOptions{Topic: topic})
	requireServerError(t, err, "AuthorizationError")
	assert.Contains(t, err.Error(), "not authorized to Produce")
	cons, err := reader.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub"})
	require.NoError(t, err, "consume is granted")
	cons.Close()

	writer := as("writer")
	_, err = writer.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "sub"})
	requireServerError(t, err, "AuthorizationError")
	assert.Contains(t, err.Error(), "not authorized to Consume")
	require.NoError(t, roundTrip(t, writer, topic), "produce is granted")

	// A namespace alice has no grant on: the lookup is refused.
	_, err = as("alice").CreateProducer(ProducerOptions{Topic: "persistent://public/default/perm"})
	requireServerError(t, err, "AuthorizationError")
	assert.Contains(t, err.Error(), "not authorized to Lookup")
	_, err = as("alice").Subscribe(ConsumerOptions{Topic: "persistent://public/default/perm", SubscriptionName: "sub"})
	requireServerError(t, err, "AuthorizationError")

	// The super user may do anything.
	require.NoError(t, produceConsume(t, as("admin"), "persistent://public/default/perm"))
}

// TestSecureStubHTTPLookup: with the web service URL the SDK looks topics
// up over the admin API, with the token in an Authorization header; the
// stub answers 401 for a bad token and, as Pulsar's validateTopicOperation,
// for a role without a grant too (the reason tells them apart).
func TestSecureStubHTTPLookup(t *testing.T) {
	s := tokenSigners(t)[0]
	b := securedWithGrants(t, s)
	web := func(o *ClientOptions) { o.URL = b.WebServiceTLSURL() }
	topic := "persistent://" + secNS + "/http"

	// The admin API itself, as the SDK's lookup sees it.
	path := "/lookup/v2/topic/persistent/" + secNS + "/http"
	status, _ := b.adminAs(t, "garbage", http.MethodGet, path, nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	status, _ = b.adminAs(t, s.sign(t, "stranger", time.Time{}), http.MethodGet, path, nil)
	assert.Equal(t, http.StatusUnauthorized, status)

	good := b.client(t, NewAuthenticationToken(s.sign(t, "alice", time.Time{})), web)
	require.NoError(t, produceConsume(t, good, topic))

	bad := b.client(t, NewAuthenticationToken("garbage"), web)
	requireServerError(t, roundTrip(t, bad, topic), "AuthenticationError")

	b.clock.Advance(2 * time.Hour)
	expired := b.client(t, NewAuthenticationToken(s.sign(t, "alice", b.clock.Now().Add(-time.Minute))), web)
	requireServerError(t, roundTrip(t, expired, topic), "AuthenticationError")

	stranger := b.client(t, NewAuthenticationToken(s.sign(t, "stranger", time.Time{})), web)
	requireServerError(t, roundTrip(t, stranger, topic), "AuthorizationError")
}
