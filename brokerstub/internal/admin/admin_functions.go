package admin

import (
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// The Pulsar Functions worker's admin API (functions, sources, sinks, the
// worker's own calls) answered as a Pulsar broker answers it with
// functionsWorkerEnabled=false, its default: 409 "Pulsar Function Worker is
// not enabled, probably functionsWorkerEnabled is set to false" to any
// authenticated role (PulsarService.getWorkerService, before any
// authorization). brokerstub cannot run the worker, and refuses
// functionsWorkerEnabled=true at start (config_features.go).

// WorkerDisabled is Pulsar's text for a worker call on a broker without it.
const WorkerDisabled = "Pulsar Function Worker is not enabled, probably functionsWorkerEnabled is set to false"

// FunctionsWorkerPaths are the path prefixes of the worker's API with the
// most segments a call of it has after them.
var FunctionsWorkerPaths = []struct {
	Prefix string
	Depth  int
}{
	{"/admin/v3/functions", 5}, // {tenant}/{ns}/{name}/{instance}/status and the like
	{"/admin/v3/sources", 5},
	{"/admin/v3/sinks", 5},
	{"/admin/v2/worker", 2}, // cluster, cluster/leader, assignments, connectors...
	{"/admin/v2/worker-stats", 1},
}

// registerFunctionsWorker adds the worker's routes: every method, every
// depth, one answer.
func (a *routeTable) registerFunctionsWorker() {
	for _, wp := range FunctionsWorkerPaths {
		for _, pattern := range FunctionsWorkerPatterns(wp.Prefix, wp.Depth) {
			for _, m := range []string{Get, Put, Post, Del} {
				a.Add(m, pattern, opAuthenticated, functionsWorkerDisabled)
			}
		}
	}
}

// FunctionsWorkerPatterns are prefix/{p1}, prefix/{p1}/{p2}, ... up to depth
// captures.
func FunctionsWorkerPatterns(prefix string, depth int) []string {
	out := make([]string, 0, depth)
	var b strings.Builder
	b.WriteString(prefix)
	for i := 1; i <= depth; i++ {
		b.WriteString("/{p" + string(rune('0'+i)) + "}")
		out = append(out, b.String())
	}
	return out
}

func functionsWorkerDisabled(*adminReq) (any, error) {
	return nil, engine.RestErr(http.StatusConflict, WorkerDisabled)
}
