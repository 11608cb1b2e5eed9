package brokerstub

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
)

// The worker's routes, for the role x route tests: open to any
// authenticated role, as Pulsar answers them before any authorization.
func init() {
	for _, wp := range admin.FunctionsWorkerPaths {
		for _, pattern := range admin.FunctionsWorkerPatterns(wp.Prefix, wp.Depth) {
			for _, m := range []string{admin.Get, admin.Put, admin.Post, admin.Del} {
				adminRouteTable = append(adminRouteTable, adminRouteRow{m, pattern, "AUTHENTICATED", needAuthn})
			}
		}
	}
}

// TestFunctionsWorkerDisabled: the functions, sources, sinks and worker
// calls answer 409 with Pulsar's text, as a broker with
// functionsWorkerEnabled=false does (PulsarServiceTest.testGetWorkerServiceException).
func TestFunctionsWorkerDisabled(t *testing.T) {
	b := RunT(t)
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/admin/v3/sources/my/test"},
		{http.MethodGet, "/admin/v3/sinks/my/test/test/status"},
		{http.MethodGet, "/admin/v3/functions/my/test/test"},
		{http.MethodPost, "/admin/v3/functions/public/default/f1"},
		{http.MethodGet, "/admin/v2/worker/cluster/leader"},
		{http.MethodGet, "/admin/v2/worker-stats/functionsmetrics"},
	} {
		code, body := adminDo(t, b, c.method, c.path, "")
		if code != http.StatusConflict || !strings.Contains(body, admin.WorkerDisabled) {
			t.Errorf("%s %s: %d %s, want 409 %q", c.method, c.path, code, body, admin.WorkerDisabled)
		}
	}
}
