package integration

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

func TestAdminClustersAndBrokers(t *testing.T) {
	e := newAdminEnv(t)
	clusters, err := e.admin.Clusters().List()
	if err != nil || !slices.Contains(clusters, "standalone") {
		t.Fatalf("clusters = %v, %v; want standalone", clusters, err)
	}
	cd, err := e.admin.Clusters().Get("standalone")
	if err != nil {
		t.Fatal(err)
	}
	if e.stub != nil && (cd.ServiceURL != e.web || cd.BrokerServiceURL != e.url) {
		t.Errorf("cluster data = %+v, want serviceUrl %s and brokerServiceUrl %s", cd, e.web, e.url)
	}
	_, err = e.admin.Clusters().Get("no-such-cluster")
	wantStatus(t, err, 404, "get a missing cluster")
	brokers, err := e.admin.Brokers().GetActiveBrokers("standalone")
	if err != nil || len(brokers) != 1 {
		t.Fatalf("brokers = %v, %v; want one", brokers, err)
	}
	//lint:ignore SA1019 the plain health check is the endpoint the official suite's scripts and older clients call
	if err := e.admin.Brokers().HealthCheck(); err != nil {
		t.Errorf("health check: %v", err)
	}
	leader, err := e.admin.Brokers().GetLeaderBroker()
	if err != nil || leader.ServiceURL == "" {
		t.Errorf("leader = %+v, %v", leader, err)
	}
}

func TestAdminTenantsAndNamespaces(t *testing.T) {
	e := newAdminEnv(t)
	tenants, err := e.admin.Tenants().List()
	if err != nil || !slices.Contains(tenants, "public") || !slices.Contains(tenants, "pulsar") {
		t.Fatalf("tenants = %v, %v; want public and pulsar", tenants, err)
	}
	nss, err := e.admin.Namespaces().GetNamespaces("public")
	if err != nil || !slices.Contains(nss, "public/default") {
		t.Fatalf("namespaces of public = %v, %v", nss, err)
	}

	tenant := fmt.Sprintf("acme-%d", topicSeq.Add(1))
	td := utils.TenantData{Name: tenant, AllowedClusters: []string{"standalone"}, AdminRoles: []string{"boss"}}
	if err := e.admin.Tenants().Create(td); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, e.admin.Tenants().Create(td), 409, "create the tenant again")
	wantStatus(t, e.admin.Tenants().Create(utils.TenantData{Name: tenant + "x", AllowedClusters: []string{"nowhere"}}), 412, "tenant in a missing cluster")
	td.AdminRoles = []string{"boss", "deputy"}
	if err := e.admin.Tenants().Update(td); err != nil {
		t.Fatal(err)
	}
	got, err := e.admin.Tenants().Get(tenant)
	if err != nil || !slices.Equal(got.AdminRoles, []string{"boss", "deputy"}) {
		t.Fatalf("tenant = %+v, %v; want the updated admin roles", got, err)
	}
	_, err = e.admin.Tenants().Get(tenant + "-missing")
	wantStatus(t, err, 404, "get a missing tenant")

	ns := tenant + "/orders"
	if err := e.admin.Namespaces().CreateNamespace(ns); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, e.admin.Namespaces().CreateNamespace(ns), 409, "create the namespace again")
	wantStatus(t, e.admin.Namespaces().CreateNamespace("no-such-tenant/x"), 404, "namespace of a missing tenant")
	pol, err := e.admin.Namespaces().GetPolicies(ns)
	if err != nil || !slices.Contains(pol.ReplicationClusters, "standalone") {
		t.Fatalf("policies = %+v, %v", pol, err)
	}
	if err := e.admin.Namespaces().SetNamespaceMessageTTL(ns, 120); err != nil {
		t.Fatal(err)
	}
	if ttl, err := e.admin.Namespaces().GetNamespaceMessageTTL(ns); err != nil || ttl != 120 {
		t.Errorf("message TTL = %d, %v; want 120", ttl, err)
	}

	nsName, _ := utils.GetNamespaceName(ns)
	if err := e.admin.Namespaces().GrantNamespacePermission(*nsName, "app", []utils.AuthAction{"produce", "consume"}); err != nil {
		t.Fatal(err)
	}
	perms, err := e.admin.Namespaces().GetNamespacePermissions(*nsName)
	if err != nil || len(perms["app"]) != 2 {
		t.Fatalf("permissions = %v, %v; want app with 2 actions", perms, err)
	}
	if err := e.admin.Namespaces().RevokeNamespacePermission(*nsName, "app"); err != nil {
		t.Fatal(err)
	}
	if perms, _ := e.admin.Namespaces().GetNamespacePermissions(*nsName); len(perms) != 0 {
		t.Errorf("permissions after revoke = %v", perms)
	}
	if err := e.admin.Namespaces().GrantSubPermission(*nsName, "orders-sub", []string{"app", "audit"}); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.Namespaces().RevokeSubPermission(*nsName, "orders-sub", "audit"); err != nil {
		t.Fatal(err)
	}
	if sp, err := e.admin.Namespaces().GetSubPermissions(*nsName); err != nil || !slices.Equal(sp["orders-sub"], []string{"app"}) {
		t.Errorf("subscription permissions = %v, %v; want orders-sub: [app]", sp, err)
	}

	// A topic used over the binary protocol is listed, and keeps the
	// namespace (and so the tenant) from being deleted.
	topic := "persistent://" + ns + "/t1"
	c := officialClient(t, e.url)
	p, err := c.CreateProducer(producerOpts(topic))
	if err != nil {
		t.Fatal(err)
	}
	topics, err := e.admin.Namespaces().GetTopics(ns)
	if err != nil || !slices.Contains(topics, topic) {
		t.Fatalf("topics of %s = %v, %v", ns, topics, err)
	}
	wantStatus(t, e.admin.Tenants().Delete(tenant), 409, "delete a tenant with namespaces")
	wantStatus(t, e.admin.Namespaces().DeleteNamespace(ns), 409, "delete a namespace with topics")
	p.Close()
	if err := e.admin.Topics().Delete(topicName(t, topic), true, true); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.Namespaces().DeleteNamespace(ns); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.Tenants().Delete(tenant); err != nil {
		t.Fatal(err)
	}
	if tenants, _ := e.admin.Tenants().List(); slices.Contains(tenants, tenant) {
		t.Errorf("tenant %s still listed after delete", tenant)
	}
}

// TestAdminStateSurvivesRestart checks that tenants, namespaces and
// partitioned topics are kept in the store like topics are.
func TestAdminStateSurvivesRestart(t *testing.T) {
	for _, dataDir := range []bool{false, true} {
		t.Run(fmt.Sprintf("dataDir=%v", dataDir), func(t *testing.T) {
			e := newAdminEnv(t, stubOptions(t, dataDir))
			e.needStub(t)
			if err := e.admin.Tenants().Create(utils.TenantData{Name: "kept", AllowedClusters: []string{"standalone"}}); err != nil {
				t.Fatal(err)
			}
			if err := e.admin.Namespaces().CreateNamespace("kept/ns"); err != nil {
				t.Fatal(err)
			}
			tn := topicName(t, "persistent://kept/ns/parts")
			if err := e.admin.Topics().Create(tn, 4); err != nil {
				t.Fatal(err)
			}
			web := e.stub.WebServiceURL()
			if err := e.stub.Restart(); err != nil {
				t.Fatal(err)
			}
			if e.stub.WebServiceURL() != web {
				t.Errorf("web service moved from %s to %s on restart", web, e.stub.WebServiceURL())
			}
			if nss, err := e.admin.Namespaces().GetNamespaces("kept"); err != nil || !slices.Equal(nss, []string{"kept/ns"}) {
				t.Errorf("namespaces after restart = %v, %v", nss, err)
			}
			if md, err := e.admin.Topics().GetMetadata(tn); err != nil || md.Partitions != 4 {
				t.Errorf("partitions after restart = %+v, %v", md, err)
			}
		})
	}
}
