package brokerstub

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// proxyBroker has token authentication and authorization, proxy roles
// "proxy" (granted produce on private/auth) and "proxy2" (granted
// nothing), "producer" granted produce, tenant admins "tadmin" and
// "proxy".
func proxyBroker(t *testing.T, o Options) *authzBroker {
	secret := []byte("proxy secret")
	o.AuthenticationEnabled, o.AuthorizationEnabled = true, true
	o.AuthenticationProviders = []AuthenticationProvider{mustProvider(t, TokenOptions{SecretKey: secret})}
	o.SuperUserRoles = []string{"admin"}
	o.ProxyRoles = []string{"proxy", "proxy2"}
	b := &authzBroker{Broker: RunT(t, o), t: t, secret: secret}
	for _, s := range []struct{ method, path, body string }{
		{http.MethodPut, "/admin/v2/tenants/private", `{"adminRoles":["tadmin","proxy"],"allowedClusters":["standalone"]}`},
		{http.MethodPut, "/admin/v2/namespaces/private/auth", `{}`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/producer", `["produce"]`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/proxy", `["produce"]`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/app-*", `["produce"]`},
		{http.MethodPost, "/admin/v2/persistent/private/auth/w/permissions/*-reader", `["consume"]`},
	} {
		if code, body := b.do("admin", s.method, s.path, s.body); code/100 != 2 {
			t.Fatalf("%s %s: %d %s", s.method, s.path, code, body)
		}
	}
	return b
}

// connectProxied connects with role's token naming original as the
// original principal (nil: none), with authData as original_auth_data.
func (b *authzBroker) connectProxied(role string, original *string, authData string) (*rawClient, *proto.BaseCommand) {
	c := dialRaw(b.t, b.Broker)
	connect := &proto.CommandConnect{ClientVersion: gproto.String("raw-proxy"), ProtocolVersion: gproto.Int32(20),
		AuthMethodName: gproto.String("token"), AuthData: []byte(b.token(role)), OriginalPrincipal: original}
	if authData != "" {
		connect.OriginalAuthData, connect.OriginalAuthMethod = &authData, gproto.String("token")
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CONNECT.Enum(), Connect: connect})
	for {
		f, err := c.next()
		if err != nil {
			b.t.Fatalf("waiting for CONNECTED or ERROR: %v", err)
		}
		if t := f.Cmd.GetType(); t == proto.BaseCommand_CONNECTED || t == proto.BaseCommand_ERROR {
			return c, f.Cmd
		}
	}
}

func wantInvalidRoles(t *testing.T, what string, c *rawClient, cmd *proto.BaseCommand) {
	t.Helper()
	if cmd.GetType() != proto.BaseCommand_ERROR || cmd.GetError().GetError() != proto.ServerError_AuthorizationError ||
		cmd.GetError().GetMessage() != "Invalid roles." {
		t.Fatalf("%s: %v, want AuthorizationError \"Invalid roles.\"", what, cmd)
	}
	c.expectClosed()
}

func TestProxyRolesOnConnect(t *testing.T) {
	b := proxyBroker(t, Options{})
	const topic = "persistent://private/auth/t"
	c, cmd := b.connectProxied("proxy", nil, "")
	wantInvalidRoles(t, "proxy role without an original principal", c, cmd)
	c, cmd = b.connectProxied("proxy", gproto.String("proxy2"), "")
	wantInvalidRoles(t, "original principal that is a proxy role", c, cmd)

	// Both the proxy's role and the original principal must be allowed.
	for _, tc := range []struct {
		role, original string
		ok             bool
	}{
		{"proxy", "producer", true},
		{"proxy", "nobody", false},    // the client may not
		{"proxy2", "producer", false}, // the proxy may not
		{"producer", "nobody", false}, // a non-proxy role naming one: both checked too
	} {
		c, cmd := b.connectProxied(tc.role, &tc.original, "")
		if cmd.GetType() != proto.BaseCommand_CONNECTED {
			t.Fatalf("%s for %s: %v", tc.role, tc.original, cmd)
		}
		if got := c.produce(topic); got != tc.ok {
			t.Errorf("%s for %s: produce allowed %v, want %v", tc.role, tc.original, got, tc.ok)
		}
		if got := lookupRaw(c, topic).GetError() != proto.ServerError_AuthorizationError; got != tc.ok {
			t.Errorf("%s for %s: lookup allowed %v, want %v", tc.role, tc.original, got, tc.ok)
		}
	}
}

// authenticateOriginalAuthData: the original principal is the role its
// credentials prove, not the name the proxy gives.
func TestAuthenticateOriginalAuthData(t *testing.T) {
	b := proxyBroker(t, Options{AuthenticateOriginalAuthData: true})
	const topic = "persistent://private/auth/t"
	c, cmd := b.connectProxied("proxy", gproto.String("producer"), b.token("nobody"))
	if cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	if c.produce(topic) {
		t.Error("claimed original principal trusted over its credentials")
	}
	c, _ = b.connectProxied("proxy", gproto.String("whoever"), b.token("producer"))
	if !c.produce(topic) {
		t.Error("original credentials of producer: produce refused")
	}
	c, cmd = b.connectProxied("proxy", gproto.String("producer"), "not a token")
	wantAuthError(t, "bad original credentials", cmd)
	c.expectClosed()
	// Without the option the name is taken on trust.
	trusting := proxyBroker(t, Options{})
	c, _ = trusting.connectProxied("proxy", gproto.String("producer"), trusting.token("nobody"))
	if !c.produce(topic) {
		t.Error("authenticateOriginalAuthData=false: original_principal not taken")
	}
}

func TestProxyRolesOnAdminAPI(t *testing.T) {
	b := proxyBroker(t, Options{})
	get := func(role, original string) int {
		req, _ := http.NewRequest(http.MethodGet, b.WebServiceURL()+"/admin/v2/namespaces/private", nil)
		req.Header.Set("Authorization", "Bearer "+b.token(role))
		if original != "" {
			req.Header.Set(admin.OriginalPrincipalHeader, original)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		role, original string
		want           int
	}{
		{"proxy", "", http.StatusUnauthorized},
		{"proxy", "proxy2", http.StatusUnauthorized},
		{"proxy", "tadmin", http.StatusOK},
		{"proxy", "producer", http.StatusUnauthorized}, // as "producer" alone (Pulsar answers 401)
		{"producer", "", http.StatusUnauthorized},
		{"tadmin", "", http.StatusOK},
	} {
		if got := get(tc.role, tc.original); got != tc.want {
			t.Errorf("%s for %q: %d, want %d", tc.role, tc.original, got, tc.want)
		}
	}
}

// authorizationAllowWildcardsMatching: "app-*" on the namespace and
// "*-reader" on a topic grant their matching roles, only with the option.
func TestAuthorizationWildcards(t *testing.T) {
	for _, on := range []bool{false, true} {
		b := proxyBroker(t, Options{AuthorizationAllowWildcardsMatching: on})
		if got := b.as("app-1").produce("persistent://private/auth/t"); got != on {
			t.Errorf("wildcards %v: app-1 produce %v", on, got)
		}
		if got := b.as("log-reader").subscribe("persistent://private/auth/w", "s"); got != on {
			t.Errorf("wildcards %v: log-reader consume on the topic %v", on, got)
		}
		if b.as("log-reader").subscribe("persistent://private/auth/other", "s") {
			t.Errorf("wildcards %v: a topic grant opened another topic", on)
		}
		if b.as("other").produce("persistent://private/auth/t") {
			t.Errorf("wildcards %v: an unmatched role may produce", on)
		}
	}
	cfg, err := ParseConfig(strings.NewReader("authorizationAllowWildcardsMatching=true\nproxyRoles=p1, p2\nauthenticateOriginalAuthData=true\n"))
	if err != nil || !cfg.Options.AuthorizationAllowWildcardsMatching || !cfg.Options.AuthenticateOriginalAuthData ||
		strings.Join(cfg.Options.ProxyRoles, ",") != "p1,p2" {
		t.Fatalf("ParseConfig: %v %+v", err, cfg.Options.ProxyRoles)
	}
}
