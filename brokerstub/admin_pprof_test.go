package brokerstub

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestPprofIsOptInAndForSuperUsers: /debug/pprof/ is served only with
// Options.Profiling, and then only to a super-user when authorization is on
// (a heap profile holds message bytes and credentials in flight).
func TestPprofIsOptInAndForSuperUsers(t *testing.T) {
	if code, _ := adminDo(t, RunT(t), http.MethodGet, "/debug/pprof/heap", ""); code != http.StatusNotFound {
		t.Errorf("without Profiling: /debug/pprof/heap answered %d, want 404", code)
	}

	secret := []byte("pprof secret")
	tok := mustProvider(t, TokenOptions{SecretKey: secret})
	b := &authzBroker{Broker: RunT(t, Options{Profiling: true, AuthenticationEnabled: true, AuthorizationEnabled: true,
		AuthenticationProviders: []AuthenticationProvider{tok}, SuperUserRoles: []string{"admin"}}), t: t, secret: secret}
	for _, c := range []struct {
		role, method, path string
		code               int
		contains           string
	}{
		{"admin", http.MethodGet, "/debug/pprof/", 200, "goroutine"},
		{"admin", http.MethodGet, "/debug/pprof/heap?debug=1", 200, "heap profile:"},
		{"admin", http.MethodGet, "/debug/pprof/goroutine?debug=1", 200, "goroutine profile:"},
		{"admin", http.MethodGet, "/debug/pprof/cmdline", 200, ""},
		{"admin", http.MethodPost, "/debug/pprof/symbol", 200, "num_symbols"},
		{"someone", http.MethodGet, "/debug/pprof/heap?debug=1", 401, ""},
		{"", http.MethodGet, "/debug/pprof/heap?debug=1", 401, ""},
	} {
		code, body := b.do(c.role, c.method, c.path, "")
		if code != c.code || !strings.Contains(body, c.contains) {
			t.Errorf("%q %s %s: %d %.80q, want %d with %q", c.role, c.method, c.path, code, body, c.code, c.contains)
		}
	}
	// The symbol look-up reads the addresses in the body (the broker is
	// in this process, so this test's own function is a symbol of it).
	pc := fmt.Sprintf("%#x", reflect.ValueOf(TestPprofIsOptInAndForSuperUsers).Pointer())
	if code, body := b.do("admin", http.MethodPost, "/debug/pprof/symbol", pc); !strings.Contains(body, "TestPprofIsOptInAndForSuperUsers") {
		t.Errorf("POST /debug/pprof/symbol %s: %d %q", pc, code, body)
	}
}
