package brokerstub

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/auth"
)

// routeProblems returns what is wrong with a route table: a route that
// declares no operation (or one without a name), or one whose operation
// needs a capture its pattern lacks (a topic operation without {tenant},
// {ns} and {topic}, ...), which would be decided on an empty name.
func routeProblems(routes []admin.Route) []string {
	var out []string
	for _, rt := range routes {
		where := rt.Method + " " + rt.Pattern
		if !rt.Op.Named() {
			out = append(out, where+": no operation")
			continue
		}
		var needs []string
		switch rt.Op.Scope() {
		case auth.ScopeTenant, auth.ScopeTenantAdmin:
			needs = []string{"{tenant}"}
		case auth.ScopeNamespace, auth.ScopeNamespacePolicy:
			needs = []string{"{tenant}", "{ns}"}
		case auth.ScopeTopic, auth.ScopeTopicPolicy:
			needs = []string{"{tenant}", "{ns}", "{topic}"}
		}
		for _, c := range needs {
			if !slices.Contains(rt.Segs, c) {
				out = append(out, fmt.Sprintf("%s: %s needs %s", where, rt.Op, c))
			}
		}
	}
	return out
}

// TestEveryAdminRouteDeclaresAnOperation walks the route table: every
// route declares an operation with the captures it is decided on, the
// operation is the one adminRouteTable gives for it (Pulsar's), every
// route is in that table and every row of it is a route, and each row's
// request is served by its own route (no earlier route shadows it).
func TestEveryAdminRouteDeclaresAnOperation(t *testing.T) {
	a := &admin.Server{Routes: admin.Routes()}
	for _, p := range routeProblems(a.Routes) {
		t.Error(p)
	}
	rows := map[string]adminRouteRow{}
	for _, row := range adminRouteTable {
		rows[row.method+" "+row.pattern] = row
	}
	seen := map[string]bool{}
	for i, rt := range a.Routes {
		key := rt.Method + " " + rt.Pattern
		if seen[key] {
			t.Errorf("%s: registered twice", key)
		}
		seen[key] = true
		row, ok := rows[key]
		if !ok {
			t.Errorf("%s: not in adminRouteTable; add it with Pulsar's operation", key)
			continue
		}
		if rt.Op.String() != row.op {
			t.Errorf("%s: declares %s, Pulsar's is %s", key, rt.Op, row.op)
		}
		for _, target := range []struct{ ns, topic string }{{"auth", "t"}, {"subscriptions", "subscription-events"}} {
			path := concretePath(rt.Pattern, target.ns, target.topic, "s1")
			if j := a.RouteIndex(rt.Method, path); j != i {
				t.Errorf("%s: %s is served by route %d, not %d", key, path, j, i)
			}
		}
	}
	for key := range rows {
		if !seen[key] {
			t.Errorf("%s: in adminRouteTable but not a route", key)
		}
	}
}

// TestRouteProblemsFindsAnUndeclaredRoute: the walk fails on a route that
// declares nothing and on one that cannot name what it acts on.
func TestRouteProblemsFindsAnUndeclaredRoute(t *testing.T) {
	got := routeProblems([]admin.Route{
		admin.NewRoute(admin.Get, "/admin/v2/x", 0, nil),
		admin.NewRoute(admin.Get, "/admin/v2/y/{tenant}/{ns}", admin.TopicPeekMessages, nil),
		admin.NewRoute(admin.Get, "/debug/pprof/{name}", admin.OpSuperUser, nil),
	})
	want := []string{"GET /admin/v2/x: no operation", "GET /admin/v2/y/{tenant}/{ns}: PEEK_MESSAGES needs {topic}"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
