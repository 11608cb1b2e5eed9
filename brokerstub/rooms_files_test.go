package brokerstub

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rootFiles are the root package's files: the public API (options and
// their config keys, inspection, errors, the authentication providers,
// the interceptor) and the wiring that starts the rooms under internal/
// (the engine, the protocol, the admin API) and connects them (broker.go,
// the listeners, TLS, the PROXY protocol). Issue #34; docs/architecture.md.
var rootFiles = []string{
	"auth.go", "auth_providers.go", "broker.go", "broker_topics.go", "broker_web.go",
	"clock.go", "command.go", "config.go", "config_features.go",
	"config_security.go", "configkeys.go", "control.go", "doc.go", "errors.go",
	"gates.go", "inspect.go", "keyshared_inspect.go", "keyshared_options.go",
	"lifecycle.go", "limits.go", "listeners.go", "options.go", "options_admin.go",
	"options_defaults.go", "options_engine.go", "options_http.go", "options_server.go",
	"options_web.go", "proxyproto.go", "ratelimit.go", "tenant_limits.go", "tls.go",
	"tls_keystore.go", "tls_versions.go",
}

// TestRootHoldsPublicAPIAndWiring fails when a non-test file of the root
// is not in rootFiles: code of the data path, the protocol or the admin
// API belongs in its package under internal/ (which TestRoomsPointOneWay
// keeps from importing the root), and a new public or wiring file is
// added to the list on purpose. It fails too on a listed file that is
// gone.
func TestRootHoldsPublicAPIAndWiring(t *testing.T) {
	all, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if !strings.HasSuffix(f, "_test.go") && !slices.Contains(rootFiles, f) {
			t.Errorf("%s is in the root but not in rootFiles: put data-path, protocol or admin code in internal/engine, internal/protocol or internal/admin, or list a public or wiring file", f)
		}
	}
	for _, f := range rootFiles {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s is listed but missing: %v", f, err)
		}
	}
}
