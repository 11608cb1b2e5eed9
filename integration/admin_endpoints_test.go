package integration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// adminEndpoints is issue #15's item 3, endpoint by endpoint, with the
// tests of this package that drive each against brokerstub (through the
// official admin client unless the entry says "HTTP": pulsaradmin has no
// method for it), checking the effect over the binary protocol where there
// is one. Non-persistent topics are covered by their own tests
// (official_nonpersistent_test.go); namespace policies by
// admin_policies_test.go, admin_quota_test.go and
// admin_namespaces_dedup_test.go.
var adminEndpoints = []struct{ endpoint, tests string }{
	{"GET /admin/v2/clusters", "TestAdminClustersAndBrokers"},
	{"GET /admin/v2/clusters/{cluster}", "TestAdminClustersAndBrokers"},
	{"GET /admin/v2/tenants", "TestAdminTenantsAndNamespaces"},
	{"PUT /admin/v2/tenants/{tenant} (create; 409, 412)", "TestAdminTenantsAndNamespaces"},
	{"POST /admin/v2/tenants/{tenant} (update)", "TestAdminTenantsAndNamespaces"},
	{"GET /admin/v2/tenants/{tenant}", "TestAdminTenantsAndNamespaces"},
	{"DELETE /admin/v2/tenants/{tenant} (409 with namespaces)", "TestAdminTenantsAndNamespaces"},
	{"GET /admin/v2/namespaces/{tenant}", "TestAdminTenantsAndNamespaces"},
	{"PUT /admin/v2/namespaces/{tenant}/{ns}", "TestAdminTenantsAndNamespaces"},
	{"GET /admin/v2/namespaces/{tenant}/{ns} (policies)", "TestAdminTenantsAndNamespaces"},
	{"DELETE /admin/v2/namespaces/{tenant}/{ns} (409 with topics)", "TestAdminTenantsAndNamespaces"},
	{"GET /admin/v2/namespaces/{tenant}/{ns}/topics (a topic used over the binary protocol)", "TestAdminTenantsAndNamespaces"},
	{"GET /admin/v2/namespaces/{tenant}/{ns}/topics?mode= (HTTP)", "TestAdminTopicListsAndAutoCreation"},
	{"POST, DELETE, GET /admin/v2/namespaces/{tenant}/{ns}/permissions[/{role}]", "TestAdminTenantsAndNamespaces"},
	{"POST, DELETE, GET /admin/v2/namespaces/{tenant}/{ns}/permissions/subscription[/...]", "TestAdminTenantsAndNamespaces"},
	{"GET /admin/v2/persistent/{tenant}/{ns}", "TestAdminTopicStats TestAdminTopicListsAndAutoCreation"},
	{"GET /admin/v2/persistent/{tenant}/{ns}/partitioned", "TestAdminTopicListsAndAutoCreation"},
	{"PUT /admin/v2/persistent/{topic} (non-partitioned; 409)", "TestAdminTopicStats"},
	{"DELETE /admin/v2/persistent/{topic} (412 with clients, then force)", "TestAdminTopicStats"},
	{"PUT .../partitions {\"partitions\":N,\"properties\":...} (served as partitioned)", "TestAdminPartitionedTopicOverBinary TestAdminCreateFormsAndForceDelete"},
	{"PUT .../partitions N, a bare number (HTTP: the Java admin client's form)", "TestAdminCreateFormsAndForceDelete"},
	{"POST .../partitions (grow; 422 to shrink; seen by clients that watch)", "TestAdminPartitionedTopicOverBinary TestAdminGrowPartitionsSeenByClients"},
	{"DELETE .../partitions (412 with clients, force closes them)", "TestAdminPartitionedTopicOverBinary TestAdminCreateFormsAndForceDelete"},
	{"GET .../partitions (metadata)", "TestAdminPartitionedTopicOverBinary"},
	{"GET .../partitions?checkAllowAutoCreation=true (HTTP; and the official client's HTTP lookup)", "TestAdminTopicListsAndAutoCreation TestAdminHTTPLookup"},
	{"GET .../stats (names, clientVersion, metadata, counters, backlog, unacked, permits)", "TestAdminTopicStats"},
	{"GET .../partitioned-stats (and per partition)", "TestAdminPartitionedTopicOverBinary TestAdminGrowPartitionsSeenByClients"},
	{"GET .../internalStats", "TestAdminTopicStats"},
	{"PUT .../unload (reaches the clients)", "TestAdminUnloadAndTerminate"},
	{"POST .../terminate (reaches the clients)", "TestAdminUnloadAndTerminate"},
	{"GET .../lastMessageId", "TestAdminTopicStats"},
	{"GET .../subscriptions", "TestAdminSubscriptions TestAdminMessages"},
	{"PUT .../subscription/{sub} (at a position; 409)", "TestAdminSubscriptions"},
	{"DELETE .../subscription/{sub} (412 with consumers)", "TestAdminSubscriptions"},
	{"POST .../subscription/{sub}/resetcursor/{timestamp} (redelivers)", "TestAdminSubscriptions"},
	{"POST .../subscription/{sub}/resetcursor (by message id; redelivers)", "TestAdminSubscriptions"},
	{"POST .../subscription/{sub}/skip/{n}", "TestAdminSubscriptions"},
	{"POST .../subscription/{sub}/skip_all", "TestAdminSubscriptions TestAdminBacklogQuotaEnforced"},
	{"POST .../subscription/{sub}/expireMessages/{seconds}", "TestAdminSubscriptions"},
	{"POST .../all_subscription/expireMessages/{seconds}", "TestAdminSubscriptions"},
	{"GET .../subscription/{sub}/position/{n} (peek; creates a missing subscription)", "TestAdminSubscriptions TestAdminMessages"},
	{"GET .../ledger/{ledger}/entry/{entry} (payload body, X-Pulsar-* headers over HTTP; a batch)", "TestAdminSubscriptions TestAdminMessages"},
	{"GET .../examinemessage (HTTP)", "TestAdminMessages"},
	{"GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}", "TestAdminHTTPLookup"},
	{"GET /admin/v2/brokers/health", "TestAdminClustersAndBrokers"},
	{"GET /admin/v2/brokers/{cluster}", "TestAdminClustersAndBrokers"},
	{"GET /admin/v2/brokers/leaderBroker", "TestAdminClustersAndBrokers"},
	{"GET /metrics (HTTP)", "TestAdminHTTPLookup"},
	{"GET, DELETE /admin/v2/schemas/{tenant}/{ns}/{topic}/schema (of a producer's schema)", "TestAdminSchemas"},
	{"POST .../schema, GET .../schema/{version}, GET .../schemas, POST .../compatibility, POST .../version", "TestAdminSchemaUpload"},
}

// TestAdminEndpointCoverage keeps adminEndpoints true: every test it names
// is a test function of this package.
func TestAdminEndpointCoverage(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				defined[fn.Name.Name] = true
			}
		}
	}
	for _, e := range adminEndpoints {
		for _, name := range strings.Fields(e.tests) {
			if !defined[name] {
				t.Errorf("%s: no test %s in this package", e.endpoint, name)
			}
		}
	}
}
