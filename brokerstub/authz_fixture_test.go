package brokerstub

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
)

// adminAuthzFixture is a broker with token authentication and
// authorization on (newAuthzBroker's set-up, served in-process so that a
// fuzz target can reuse it): super user "admin", tenant "private" with
// admin "tadmin", and in each namespace it is given, produce to
// "producer", consume to "consumer", both to "prodcons", and the
// subscription "locked" only to "other".
type adminAuthzFixture struct {
	b      *Broker
	h      http.Handler
	tokens map[string]string
}

// adminAuthzSecret signs the fixture's tokens.
const adminAuthzSecret = "authz secret"

func newAdminAuthzFixture(tb testing.TB) *adminAuthzFixture {
	secret := []byte(adminAuthzSecret)
	tok := mustProvider(tb, TokenOptions{SecretKey: secret})
	b := RunT(tb, Options{NoListener: true, AuthenticationEnabled: true, AuthorizationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{tok}, SuperUserRoles: []string{roleSuper}})
	f := &adminAuthzFixture{b: b, h: b.AdminHandler(), tokens: map[string]string{}}
	for _, r := range append(testAdminRoles, "other") {
		if r != roleNone {
			f.tokens[r] = hs256(tb, secret, jwtClaims{"sub": r})
		}
	}
	return f
}

// do serves one admin request as role and returns its status and body.
func (f *adminAuthzFixture) do(role, method, path, body string) (int, string) {
	req := httptest.NewRequest(method, "http://stub"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if role != roleNone {
		req.Header.Set("Authorization", "Bearer "+f.tokens[role])
	}
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.h.ServeHTTP(rec, req)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		// Fails the test (and a fuzz input) with where it hangs.
		buf := make([]byte, 1<<20)
		panic(fmt.Sprintf("%s %s as %q: no answer after 10 s\n%s", method, path, role, buf[:runtime.Stack(buf, true)]))
	}
	return rec.Code, rec.Body.String()
}

// setUp (re)creates the tenant, namespace ns with its grants, the
// persistent topic and its subscription "s1", whatever a request before
// changed; it is idempotent.
func (f *adminAuthzFixture) setUp(tb testing.TB, ns, topic string) {
	tb.Helper()
	tenant := `{"adminRoles":["tadmin"],"allowedClusters":["standalone"]}`
	nsp := "/admin/v2/namespaces/private/" + ns
	for _, s := range []struct{ method, path, body string }{
		{admin.Put, "/admin/v2/tenants/private", tenant},
		{admin.Post, "/admin/v2/tenants/private", tenant},
		{admin.Put, nsp, `{}`},
		{admin.Post, nsp + "/permissions/" + roleProducer, `["produce"]`},
		{admin.Post, nsp + "/permissions/" + roleConsumer, `["consume"]`},
		{admin.Post, nsp + "/permissions/" + roleProdCons, `["produce","consume"]`},
		{admin.Post, nsp + "/permissions/subscription/locked", `["other"]`},
		{admin.Put, "/admin/v2/persistent/private/" + ns + "/" + topic, ``},
		{admin.Put, "/admin/v2/persistent/private/" + ns + "/" + topic + "/subscription/s1", ``},
	} {
		if code, body := f.do(roleSuper, s.method, s.path, s.body); code/100 != 2 && code != http.StatusConflict {
			tb.Fatalf("set-up %s %s: %d %s", s.method, s.path, code, body)
		}
	}
}

// concretePath fills a route pattern's captures: the tenant "private",
// namespace ns, topic and subscription sub, a persistent {domain}, and
// harmless values for the rest ({role} names nobody the test uses).
func concretePath(pattern, ns, topic, sub string) string {
	vals := map[string]string{
		"{tenant}": "private", "{ns}": ns, "{topic}": topic, "{sub}": sub, "{domain}": "persistent",
		"{role}": "someone", "{policy}": "subscriptionDispatchRate", "{cluster}": "standalone", "{name}": "x",
		"{value}": "1", "{timestamp}": "0", "{ledger}": "0", "{entry}": "0", "{n}": "1", "{seconds}": "1",
		"{version}": "0", "{most}": "0", "{least}": "0",
	}
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if v, ok := vals[s]; ok {
			segs[i] = pathEscapeSegment(v)
		}
	}
	return strings.Join(segs, "/")
}

// pathEscapeSegment escapes a capture's value as one path segment.
func pathEscapeSegment(v string) string {
	return strings.NewReplacer("%", "%25", "/", "%2F", "?", "%3F", "#", "%23", " ", "%20").Replace(v)
}

// checkAdminDecision serves one request as role and checks it against
// need: refused with need's status (401 without credentials) when need
// does not let role in, not refused (neither 401 nor 403) when it does.
func (f *adminAuthzFixture) checkAdminDecision(t testing.TB, role, method, path string, need routeNeed, lockedSub bool) {
	t.Helper()
	code, body := f.do(role, method, path, "")
	refused := code == http.StatusUnauthorized || code == http.StatusForbidden
	switch want := need.refusal(); {
	case need.allows(role, lockedSub):
		if refused {
			t.Errorf("%s %s as %q: %d %s, want it served", method, path, role, code, body)
		}
	case role == roleNone:
		if code != http.StatusUnauthorized {
			t.Errorf("%s %s without credentials: %d %s, want 401", method, path, code, body)
		}
	case code != want:
		t.Errorf("%s %s as %q: %d %s, want %d", method, path, role, code, body, want)
	}
}
