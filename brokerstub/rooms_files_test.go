package brokerstub

import (
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/internal/typecheck"
)

// The root package's files by room (issue #34, docs/architecture.md): the
// data path (internal/engine) and the binary protocol (internal/protocol)
// are packages already; the admin API is to become one. Each non-test
// file is in one list; a new file must be put in one.
var (
	// adminFiles serve HTTP: the admin REST API, the console and the
	// WebSocket API.
	adminFiles = []string{
		"admin_analyze.go", "authz_ops.go", "web.go", "admin_routes_index.go", "admin_bundles.go", "admin_client_version.go",
		"admin_compaction.go", "admin_functions.go", "admin_lookup.go",
		"admin_messages.go", "admin_metrics.go", "admin_namespace_policies.go",
		"admin_namespaces.go", "admin_nonpersistent.go", "admin_packages.go",
		"admin_permissions.go", "admin_pprof.go", "admin_routes.go",
		"admin_schemas.go", "admin_server.go", "admin_stats.go",
		"admin_stats_publishers.go", "admin_subscriptions.go", "admin_tenants.go",
		"admin_topic_permissions.go", "admin_topics.go", "admin_topics_delete.go",
		"admin_transactions.go", "auth_http.go", "authz_admin.go",
		"console.go", "console_cursor.go", "console_keyshared.go", "http_errors.go",
		"http_limits.go", "websocket.go", "websocket_binary.go",
		"websocket_consumer.go", "websocket_deliver.go", "websocket_producer.go",
	}
	// publicFiles are the public API (options, inspection, errors,
	// authentication providers, the interceptor) and the wiring, with the
	// PROXY protocol both the binary and the HTTP listeners may read
	// (proxyproto.go): what the root keeps.
	publicFiles = []string{
		"auth.go", "auth_providers.go", "broker.go", "broker_topics.go",
		"clock.go", "command.go", "config.go", "config_features.go",
		"config_security.go", "configkeys.go", "control.go", "doc.go", "errors.go",
		"gates.go", "inspect.go", "keyshared_inspect.go", "keyshared_options.go",
		"lifecycle.go", "limits.go", "listeners.go", "options.go", "options_admin.go",
		"options_defaults.go", "broker_web.go", "options_http.go", "options_web.go", "options_engine.go", "options_server.go", "proxyproto.go", "ratelimit.go", "tenant_limits.go", "tls.go",
		"tls_keystore.go", "tls_versions.go",
	}
)

// roomOfFiles returns the room of each file listed above, failing t when
// a file is listed twice, a non-test file of the package is in no list or
// a listed file is missing.
func roomOfFiles(t *testing.T) map[string]string {
	t.Helper()
	roomOf := map[string]string{}
	for room, files := range map[string][]string{"admin": adminFiles, "public": publicFiles} {
		for _, f := range files {
			if prev, ok := roomOf[f]; ok {
				t.Errorf("%s is listed in %s and %s", f, prev, room)
			}
			roomOf[f] = room
		}
	}
	all, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if _, ok := roomOf[f]; !ok && !strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s is in no room: add it to one of the lists of rooms_files_test.go", f)
		}
	}
	for f := range roomOf {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s is listed but missing: %v", f, err)
		}
	}
	return roomOf
}

// TestAdminRoomNamesOfTheRoot type-checks the root package and fails when
// a method of a type of the admin files is declared outside them. It logs
// how many definitions of the public and wiring files the admin files
// name: the arrows to cut before the admin API can be a package as the
// engine and the protocol are (those packages name nothing of the root:
// the compiler checks it, and TestRoomsPointOneWay).
func TestAdminRoomNamesOfTheRoot(t *testing.T) {
	roomOf := roomOfFiles(t)
	pkg, info, fset, err := typecheck.Dir(".", rootImportPath)
	if err != nil {
		t.Fatal(err)
	}
	fileOf := func(n interface{ Pos() token.Pos }) string { return filepath.Base(fset.Position(n.Pos()).Filename) }
	var bad []string
	toPublic := map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		member := false
		if v, ok := obj.(*types.Var); ok && v.IsField() {
			member = true
		}
		if f, ok := obj.(*types.Func); ok && f.Signature().Recv() != nil {
			member = true
		}
		if !member && obj.Parent() != pkg.Scope() {
			continue // a local
		}
		if roomOf[fileOf(id)] == "admin" && roomOf[fileOf(obj)] == "public" {
			toPublic[obj.Name()+" ("+fileOf(obj)+")"] = true
		}
	}
	for id, obj := range info.Defs {
		f, ok := obj.(*types.Func)
		if !ok || f.Signature().Recv() == nil {
			continue
		}
		n := namedOf(f.Signature().Recv().Type())
		if n == nil || n.Obj().Pkg() != pkg {
			continue
		}
		if owner := roomOf[fileOf(n.Obj())]; owner != "public" && owner != roomOf[fileOf(id)] {
			bad = append(bad, "method "+n.Obj().Name()+"."+f.Name()+" of the "+owner+" is declared in "+roomOf[fileOf(id)]+" file "+fileOf(id))
		}
	}
	t.Logf("the admin files name %d definitions of the public and wiring files", len(toPublic))
	sort.Strings(bad)
	bad = slices.Compact(bad)
	for _, b := range bad {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Logf("move the definition to the room that owns its concept (or to a public/wiring file), or reach the other room through a hook set by the wiring (broker.go)")
	}
}

// namedOf returns the named type of a method receiver (T or *T), or nil.
func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}
