package brokerstub

import (
	"io"
	"net/http"
	"strings"
	"testing"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// authzBroker is a broker with token authentication and authorization,
// super user "admin", and private/auth granting produce to "producer" and
// consume to "consumer", set up through the admin API.
type authzBroker struct {
	*Broker
	t      *testing.T
	secret []byte
}

func newAuthzBroker(t *testing.T, anonymous string) *authzBroker {
	secret := []byte("authz secret")
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := &authzBroker{Broker: RunT(t, Options{AuthenticationEnabled: true, AuthorizationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{tok}, SuperUserRoles: []string{"admin"}, AnonymousUserRole: anonymous}),
		t: t, secret: secret}
	for _, s := range []struct{ method, path, body string }{
		{http.MethodPut, "/admin/v2/tenants/private", `{"adminRoles":["tadmin"],"allowedClusters":["standalone"]}`},
		{http.MethodPut, "/admin/v2/namespaces/private/auth", `{}`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/producer", `["produce"]`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/consumer", `["consume"]`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/subscription/locked", `["other"]`},
	} {
		if code, body := b.do("admin", s.method, s.path, s.body); code/100 != 2 {
			t.Fatalf("%s %s: %d %s", s.method, s.path, code, body)
		}
	}
	return b
}

func (b *authzBroker) token(role string) string { return hs256(b.t, b.secret, jwtClaims{"sub": role}) }

// do makes an admin request as role ("" for none) and returns status and
// body.
func (b *authzBroker) do(role, method, path, body string) (int, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.WebServiceURL()+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if role != "" {
		req.Header.Set("Authorization", "Bearer "+b.token(role))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// as connects a raw client with role's token.
func (b *authzBroker) as(role string) *rawClient {
	c := dialRaw(b.t, b.Broker)
	if cmd := c.connectWith("token", []byte(b.token(role))); cmd.GetType() != proto.BaseCommand_CONNECTED {
		b.t.Fatalf("%s: %v", role, cmd)
	}
	return c
}

// produce and subscribe answer true on success, false on AuthorizationError.
func (c *rawClient) produce(topic string) bool {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: gproto.String(topic), ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(2)}})
	return c.successOrAuthzError()
}

func (c *rawClient) subscribe(topic, sub string) bool {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: gproto.String(topic), Subscription: gproto.String(sub), SubType: proto.CommandSubscribe_Shared.Enum(),
		ConsumerId: gproto.Uint64(3), RequestId: gproto.Uint64(4), ForceTopicCreation: gproto.Bool(true)}})
	return c.successOrAuthzError()
}

func (c *rawClient) successOrAuthzError() bool {
	c.t.Helper()
	for {
		f, err := c.next()
		if err != nil {
			c.t.Fatal(err)
		}
		switch f.Cmd.GetType() {
		case proto.BaseCommand_PRODUCER_SUCCESS, proto.BaseCommand_SUCCESS:
			return true
		case proto.BaseCommand_ERROR:
			if f.Cmd.GetError().GetError() != proto.ServerError_AuthorizationError {
				c.t.Fatalf("error %v, want AuthorizationError", f.Cmd.GetError())
			}
			return false
		}
	}
}

func TestAuthorizationOnLookupProducerSubscribe(t *testing.T) {
	b := newAuthzBroker(t, "")
	const topic = "persistent://private/auth/t"
	for _, c := range []struct {
		role                        string
		lookup, produce, consume, l bool
	}{
		{role: "admin", lookup: true, produce: true, consume: true},
		{role: "tadmin", lookup: true, produce: true, consume: true},
		{role: "producer", lookup: true, produce: true},
		{role: "consumer", lookup: true, consume: true},
		{role: "nobody"},
	} {
		rc := b.as(c.role)
		r := lookupRaw(rc, topic)
		if got := r.GetResponse() == proto.CommandLookupTopicResponse_Connect; got != c.lookup ||
			!got && r.GetError() != proto.ServerError_AuthorizationError {
			t.Fatalf("%s: lookup %v", c.role, r)
		}
		if got := rc.produce(topic); got != c.produce {
			t.Fatalf("%s: produce allowed %v, want %v", c.role, got, c.produce)
		}
		if got := rc.subscribe(topic, "s"); got != c.consume {
			t.Fatalf("%s: subscribe allowed %v, want %v", c.role, got, c.consume)
		}
	}
	// A subscription with roles of its own is closed to the others.
	if b.as("consumer").subscribe(topic, "locked") {
		t.Fatal("consumer subscribed to a subscription granted only to other")
	}
	// Revoking takes effect at once.
	if code, body := b.do("admin", http.MethodDelete, "/admin/v2/namespaces/private/auth/permissions/producer", ""); code != 204 {
		t.Fatalf("revoke: %d %s", code, body)
	}
	if b.as("producer").produce(topic) {
		t.Fatal("producer produced after its permission was revoked")
	}
}

func TestAnonymousRoleIsAuthorizedByGrants(t *testing.T) {
	b := newAuthzBroker(t, "anonymous")
	c := dialRaw(t, b.Broker)
	if cmd := c.connectWith("", nil); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	if c.produce("persistent://public/default/t") {
		t.Fatal("anonymous produced before any grant")
	}
	if code, body := b.do("admin", http.MethodPost, "/admin/v2/namespaces/public/default/permissions/anonymous", `["produce","consume"]`); code != 204 {
		t.Fatalf("grant: %d %s", code, body)
	}
	if !c.produce("persistent://public/default/t") {
		t.Fatal("anonymous refused after the grant")
	}
	if code, _ := b.do("", http.MethodGet, "/admin/v2/persistent/public/default/t/stats", ""); code != 200 {
		t.Fatalf("anonymous topic stats: %d", code)
	}
	if code, _ := b.do("", http.MethodPut, "/admin/v2/tenants/evil", `{"allowedClusters":["standalone"]}`); code != 401 {
		t.Fatalf("anonymous created a tenant: %d", code)
	}
}

func TestAdminAPIAuthenticationAndAuthorization(t *testing.T) {
	b := newAuthzBroker(t, "")
	for _, c := range []struct {
		role, method, path, body string
		want                     int
	}{
		{"", http.MethodGet, "/admin/v2/clusters", "", 401},
		{"admin", http.MethodGet, "/admin/v2/clusters", "", 200},
		{"nobody", http.MethodGet, "/admin/v2/clusters", "", 200}, // Pulsar's getClusters checks no role
		{"nobody", http.MethodGet, "/admin/v2/clusters/standalone", "", 401},
		{"nobody", http.MethodGet, "/admin/v2/tenants/private", "", 401},
		{"tadmin", http.MethodGet, "/admin/v2/tenants/private", "", 401}, // Pulsar: super users only
		{"admin", http.MethodGet, "/admin/v2/tenants/private", "", 200},
		{"tadmin", http.MethodPost, "/admin/v2/tenants/private", `{"adminRoles":["tadmin","x"],"allowedClusters":["standalone"]}`, 401},
		{"tadmin", http.MethodPut, "/admin/v2/namespaces/private/ns2", "{}", 204},
		{"producer", http.MethodPut, "/admin/v2/namespaces/private/ns3", "{}", 401}, // TenantOperation: 401
		{"producer", http.MethodGet, "/admin/v2/namespaces/private/auth/topics", "", 200},
		{"nobody", http.MethodGet, "/admin/v2/namespaces/private/auth/topics", "", 403},
		{"producer", http.MethodGet, "/lookup/v2/topic/persistent/private/auth/t", "", 200},
		{"nobody", http.MethodGet, "/lookup/v2/topic/persistent/private/auth/t", "", 401}, // TopicOperation: 401
		{"consumer", http.MethodPut, "/admin/v2/persistent/private/auth/t/subscription/s", "", 204},
		{"producer", http.MethodPut, "/admin/v2/persistent/private/auth/t/subscription/s2", "", 401},
		{"producer", http.MethodDelete, "/admin/v2/persistent/private/auth/t", "", 403},
		{"admin", http.MethodGet, "/admin/v2/persistent/private/auth/t/stats", "", 200},
	} {
		if code, body := b.do(c.role, c.method, c.path, c.body); code != c.want {
			t.Fatalf("%s %s as %q: %d %s, want %d", c.method, c.path, c.role, code, body, c.want)
		}
	}
	// A forged token and a bad Authorization header are 401.
	for _, h := range []string{"Bearer " + hs256(t, []byte("other"), jwtClaims{"sub": "admin"}), "Basic !!", "Negotiate x"} {
		req, _ := http.NewRequest(http.MethodGet, b.WebServiceURL()+"/admin/v2/clusters", nil)
		req.Header.Set("Authorization", h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("Authorization %.20q: %d, want 401", h, resp.StatusCode)
		}
	}
	// /metrics stays open, as Pulsar's authenticateMetricsEndpoint=false.
	if code, _ := b.do("", http.MethodGet, "/metrics", ""); code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
}
