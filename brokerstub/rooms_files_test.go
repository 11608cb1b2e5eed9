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

// The root package's files by the room they are to become (issue #34,
// docs/architecture.md); the data path is a package already
// (internal/engine). Each non-test file is in one list; a new file must be
// put in one.
var (
	// protocolFiles serve the binary protocol: connections and the
	// handlers of its commands.
	protocolFiles = []string{
		"auth_conn.go", "conn.go", "conn_authz.go", "connlimit.go", "handle.go",
		"handle_ack.go", "handle_consumer.go", "handle_lookup.go",
		"handle_producer.go", "handle_schema.go", "handle_seek.go", "handle_send.go",
		"handle_topiclist.go", "lookup_limits.go", "outq.go", "proxy_roles.go",
		"send_budget.go", "server.go", "txn_handlers.go", "conn_tls.go",
	}
	// adminFiles serve HTTP: the admin REST API, the console and the
	// WebSocket API.
	adminFiles = []string{
		"admin_analyze.go", "admin_bundles.go", "admin_client_version.go",
		"admin_compaction.go", "admin_functions.go", "admin_lookup.go",
		"admin_messages.go", "admin_metrics.go", "admin_namespace_policies.go",
		"admin_namespaces.go", "admin_nonpersistent.go", "admin_packages.go",
		"admin_permissions.go", "admin_pprof.go", "admin_routes.go",
		"admin_schemas.go", "admin_server.go", "admin_stats.go",
		"admin_stats_publishers.go", "admin_subscriptions.go", "admin_tenants.go",
		"admin_topic_permissions.go", "admin_topics.go", "admin_topics_delete.go",
		"admin_transactions.go", "auth_http.go", "authz_admin.go", "broker_web.go",
		"console.go", "console_cursor.go", "console_keyshared.go", "http_errors.go",
		"http_limits.go", "websocket.go", "websocket_binary.go",
		"websocket_consumer.go", "websocket_deliver.go", "websocket_producer.go",
	}
	// publicFiles are the public API (options, inspection, errors,
	// authentication providers, the interceptor) and the wiring, with the
	// PROXY protocol both the binary and the HTTP listeners may read
	// (proxyproto.go): what the root keeps.
	publicFiles = []string{
		"auth.go", "auth_providers.go", "authz_ops.go", "broker.go", "broker_topics.go",
		"clock.go", "command.go", "config.go", "config_features.go",
		"config_security.go", "configkeys.go", "control.go", "doc.go", "errors.go",
		"gates.go", "inspect.go", "keyshared_inspect.go", "keyshared_options.go",
		"lifecycle.go", "limits.go", "listeners.go", "options.go", "options_admin.go",
		"options_defaults.go", "options_engine.go", "options_server.go", "proxyproto.go", "ratelimit.go", "tenant_limits.go", "tls.go",
		"tls_keystore.go", "tls_versions.go",
	}
)

// forbiddenArrows are the pairs of rooms whose first may name no
// definition of the second: the arrows the packages they are to become
// could not have. The protocol and the admin files do not name each
// other; the protocol names nothing of the public API and wiring either
// (it reads its own serverConfig and asks the rest of the broker through
// serverHooks, server.go); the admin files may name the public and wiring
// files. Both may name the engine package.
var forbiddenArrows = map[[2]string]bool{
	{"protocol", "admin"}:  true,
	{"protocol", "public"}: true,
	{"admin", "protocol"}:  true,
}

// roomOfFiles returns the room of each file listed above, failing t when
// a file is listed twice, a non-test file of the package is in no list or
// a listed file is missing.
func roomOfFiles(t *testing.T) map[string]string {
	t.Helper()
	roomOf := map[string]string{}
	for room, files := range map[string][]string{"protocol": protocolFiles, "admin": adminFiles, "public": publicFiles} {
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

// TestRoomsNameNoForbiddenRoom type-checks the root package and fails
// when a file names a definition of a room that forbiddenArrows keeps it
// from (a protocol file naming an admin definition or the other way
// round), or when a method of a type of the protocol or the admin files is
// declared outside its room. That the engine names nothing of the root is
// the compiler's to check now, and TestRoomsPointOneWay's.
func TestRoomsNameNoForbiddenRoom(t *testing.T) {
	roomOf := roomOfFiles(t)
	pkg, info, fset, err := typecheck.Dir(".", rootImportPath)
	if err != nil {
		t.Fatal(err)
	}
	fileOf := func(n interface{ Pos() token.Pos }) string { return filepath.Base(fset.Position(n.Pos()).Filename) }
	var bad []string
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
		if use, def := roomOf[fileOf(id)], roomOf[fileOf(obj)]; forbiddenArrows[[2]string{use, def}] {
			bad = append(bad, use+" file "+fileOf(id)+" names "+obj.Name()+" of "+def+" file "+fileOf(obj))
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
