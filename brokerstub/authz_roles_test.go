package brokerstub

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/internal/proto"
)

// What each admin route needs, as Pulsar's PulsarWebResource checks and
// PulsarAuthorizationProvider decides (Pulsar 4.x), written down here
// independently of the route table: the test below holds the stub to it.

// routeNeed is who may use a route and what the others are answered.
type routeNeed int

const (
	needOpen           routeNeed = iota // anyone, even without credentials
	needAuthn                           // any authenticated role
	needSuper                           // super users; others 401
	needTenantAdmin401                  // the tenant's admins; others 401 (validateAdminAccessForTenant, TenantOperation, tenant-admin TopicOperations)
	needTenantAdmin403                  // the tenant's admins; others 403 (NamespaceOperation, namespace and topic policies)
	needNamespaceGrant                  // a namespace produce or consume grant (GET_TOPICS); others 403
	needLookup                          // produce or consume (LOOKUP, GET_STATS, GET_METADATA); others 401
	needProduce                         // produce; others 401
	needConsume                         // consume and the subscription's roles; others 401
)

// adminRouteRow is one admin route and Pulsar's operation for it.
type adminRouteRow struct {
	method, pattern string
	op              string // Pulsar's operation name (authz_ops.go's names)
	need            routeNeed
}

const (
	testSchemaPath = "/admin/v2/schemas/{tenant}/{ns}/{topic}"
	testTxnPath    = "/admin/v3/transactions"
)

// adminRouteTable is every admin route with its Pulsar operation.
var adminRouteTable = []adminRouteRow{
	{get, "/admin/v2/clusters", "AUTHENTICATED", needAuthn}, // ClustersBase.getClusters checks no role
	{get, "/admin/v2/clusters/{cluster}", "SUPER_USER", needSuper},
	{get, "/admin/v2/brokers", "LIST", needSuper},
	{get, "/admin/v2/brokers/health", "HEALTHCHECK", needSuper},
	{get, "/admin/v2/brokers/ready", "AUTHENTICATED", needAuthn}, // BrokersBase.isReady checks no role
	{get, "/admin/v2/brokers/leaderBroker", "SUPER_USER", needSuper},
	{get, "/admin/v2/brokers/internal-configuration", "GET_INTERNAL_CONFIG", needSuper},
	{get, "/admin/v2/brokers/configuration", "LIST_DYNAMIC_CONFIG", needSuper},
	{get, "/admin/v2/brokers/configuration/values", "GET_ALL_DYNAMIC_CONFIG", needSuper},
	{get, "/admin/v2/brokers/configuration/runtime", "GET_RUNTIME_CONFIG", needSuper},
	{post, "/admin/v2/brokers/configuration/{name}/{value}", "UPDATE_DYNAMIC_CONFIG", needSuper},
	{del, "/admin/v2/brokers/configuration/{name}", "DELETE_DYNAMIC_CONFIG", needSuper},
	{get, "/admin/v2/brokers/{cluster}", "LIST", needSuper},
	{get, "/admin/v2/tenants", "SUPER_USER", needSuper},
	{get, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{put, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{post, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{del, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},

	{get, "/admin/v2/namespaces/{tenant}", "LIST_NAMESPACES", needTenantAdmin401},
	{get, nsPath, "READ", needTenantAdmin403},
	{put, nsPath, "CREATE_NAMESPACE", needTenantAdmin401},
	{del, nsPath, "DELETE_NAMESPACE", needTenantAdmin401},
	{get, nsPath + "/topics", "GET_TOPICS", needNamespaceGrant},
	{get, nsPath + "/permissions", "GET_PERMISSION", needTenantAdmin403},
	{get, nsPath + "/permissions/subscription", "GET_PERMISSION", needTenantAdmin403},
	{post, nsPath + "/permissions/subscription/{sub}", "GRANT_PERMISSION", needTenantAdmin403},
	{del, nsPath + "/permissions/{sub}/{role}", "REVOKE_PERMISSION", needTenantAdmin403},
	{get, nsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{post, nsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{del, nsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{post, nsPath + "/permissions/{role}", "GRANT_PERMISSION", needTenantAdmin403},
	{del, nsPath + "/permissions/{role}", "REVOKE_PERMISSION", needTenantAdmin403},
	{get, nsPath + "/backlogQuotaMap", "READ", needTenantAdmin403},
	{post, nsPath + "/backlogQuota", "WRITE", needTenantAdmin403},
	{del, nsPath + "/backlogQuota", "WRITE", needTenantAdmin403},
	{put, nsPath + "/unload", "SUPER_USER", needSuper},
	{get, nsPath + "/{policy}", "READ", needTenantAdmin403},
	{post, nsPath + "/{policy}", "WRITE", needTenantAdmin403},
	{put, nsPath + "/{policy}", "WRITE", needTenantAdmin403},
	{del, nsPath + "/{policy}", "WRITE", needTenantAdmin403},

	{get, "/admin/v2/non-persistent/{tenant}/{ns}", "GET_TOPICS", needNamespaceGrant},
	{get, npTopicPath + "/stats", "GET_STATS", needLookup},
	{get, npTopicPath + "/partitioned-stats", "GET_STATS", needLookup},
	{get, npTopicPath + "/lastMessageId", "PEEK_MESSAGES", needConsume},
	{post, npTopicPath + "/terminate", "TERMINATE", needTenantAdmin401},
	{post, npTopicPath + "/subscription/{sub}/skip/{n}", "SKIP", needConsume},
	{put, npTopicPath + "/subscription/{sub}", "SUBSCRIBE", needConsume},

	{get, "/admin/v2/{domain}/{tenant}/{ns}", "GET_TOPICS", needNamespaceGrant},
	{get, "/admin/v2/{domain}/{tenant}/{ns}/partitioned", "GET_TOPICS", needNamespaceGrant},
	{put, topicPath, "CREATE_TOPIC", needTenantAdmin403},
	{del, topicPath, "DELETE_TOPIC", needTenantAdmin403},
	{get, topicPath + "/partitions", "LOOKUP", needLookup},
	{put, topicPath + "/partitions", "CREATE_TOPIC", needTenantAdmin403},
	{post, topicPath + "/partitions", "WRITE", needTenantAdmin403}, // PolicyName.PARTITION
	{del, topicPath + "/partitions", "DELETE_TOPIC", needTenantAdmin403},
	{get, topicPath + "/stats", "GET_STATS", needLookup},
	{get, topicPath + "/partitioned-stats", "GET_STATS", needLookup},
	{get, topicPath + "/internalStats", "GET_STATS", needLookup},
	{put, topicPath + "/unload", "UNLOAD", needTenantAdmin401},
	{post, topicPath + "/terminate", "TERMINATE", needTenantAdmin401},
	{get, topicPath + "/lastMessageId", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/messageid/{timestamp}", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/subscriptions", "GET_SUBSCRIPTIONS", needConsume},
	{get, topicPath + "/examinemessage", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/ledger/{ledger}/entry/{entry}", "PEEK_MESSAGES", needConsume},
	{post, topicPath + "/all_subscription/expireMessages/{seconds}", "EXPIRE_MESSAGES", needConsume},
	{put, subPath, "SUBSCRIBE", needConsume},
	{del, subPath, "UNSUBSCRIBE", needConsume},
	{post, subPath + "/resetcursor", "RESET_CURSOR", needConsume},
	{post, subPath + "/resetcursor/{timestamp}", "RESET_CURSOR", needConsume},
	{post, subPath + "/skip/{n}", "SKIP", needConsume},
	{post, subPath + "/skip_all", "SKIP", needConsume},
	{post, subPath + "/expireMessages", "EXPIRE_MESSAGES", needConsume},
	{post, subPath + "/expireMessages/{seconds}", "EXPIRE_MESSAGES", needConsume},
	{get, subPath + "/position/{n}", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/permissions", "TENANT_ADMIN", needTenantAdmin401},
	{post, topicPath + "/permissions/{role}", "TENANT_ADMIN", needTenantAdmin401},
	{del, topicPath + "/permissions/{role}", "TENANT_ADMIN", needTenantAdmin401},
	{get, topicPath + "/properties", "GET_METADATA", needLookup},
	{put, topicPath + "/properties", "UPDATE_METADATA", needTenantAdmin401},
	{del, topicPath + "/properties", "DELETE_METADATA", needTenantAdmin401},
	{get, topicPath + "/{policy}", "READ", needTenantAdmin403},
	{post, topicPath + "/{policy}", "WRITE", needTenantAdmin403},
	{put, topicPath + "/{policy}", "WRITE", needTenantAdmin403},
	{del, topicPath + "/{policy}", "WRITE", needTenantAdmin403},

	{get, "/lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}", "LOOKUP", needLookup},
	{get, testSchemaPath + "/schema", "GET_METADATA", needLookup},
	{post, testSchemaPath + "/schema", "PRODUCE", needProduce},
	{del, testSchemaPath + "/schema", "TENANT_ADMIN", needTenantAdmin401},
	{get, testSchemaPath + "/schema/{version}", "GET_METADATA", needLookup},
	{get, testSchemaPath + "/schemas", "GET_METADATA", needLookup},
	{post, testSchemaPath + "/compatibility", "TENANT_ADMIN", needTenantAdmin401},
	{post, testSchemaPath + "/version", "GET_METADATA", needLookup},
	{get, testTxnPath + "/coordinatorStats", "AUTHENTICATED", needAuthn},
	{get, testTxnPath + "/transactionMetadata/{most}/{least}", "AUTHENTICATED", needAuthn},
	{get, testTxnPath + "/transactionInBufferStats/{tenant}/{ns}/{topic}/{most}/{least}", "AUTHENTICATED", needAuthn},
	{get, testTxnPath + "/transactionInPendingAckStats/{tenant}/{ns}/{topic}/{sub}/{most}/{least}", "AUTHENTICATED", needAuthn},
	{get, "/metrics", "OPEN", needOpen},
	{get, "/status.html", "OPEN", needOpen},
}

// The roles of the table test: no credentials at all, an authenticated
// role with no grant, namespace grants, the tenant's admin, a super user.
const (
	roleNone     = ""
	roleNobody   = "nobody"
	roleProducer = "producer"
	roleConsumer = "consumer"
	roleProdCons = "prodcons"
	roleTenant   = "tadmin"
	roleSuper    = "admin"
)

var testAdminRoles = []string{roleNone, roleNobody, roleProducer, roleConsumer, roleProdCons, roleTenant, roleSuper}

// allows reports whether need lets role in; lockedSub says the request
// names a subscription whose namespace grants it to another role only.
func (n routeNeed) allows(role string, lockedSub bool) bool {
	switch {
	case n == needOpen:
		return true
	case role == roleNone:
		return false
	case n == needAuthn, role == roleSuper:
		return true
	case n == needSuper:
		return false
	case role == roleTenant:
		return true
	}
	switch n {
	case needNamespaceGrant, needLookup:
		return role != roleNobody
	case needProduce:
		return role == roleProducer || role == roleProdCons
	case needConsume:
		return (role == roleConsumer || role == roleProdCons) && !lockedSub
	}
	return false
}

// refusal is the status the others get.
func (n routeNeed) refusal() int {
	switch n {
	case needTenantAdmin403, needNamespaceGrant:
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}

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
		{put, "/admin/v2/tenants/private", tenant},
		{post, "/admin/v2/tenants/private", tenant},
		{put, nsp, `{}`},
		{post, nsp + "/permissions/" + roleProducer, `["produce"]`},
		{post, nsp + "/permissions/" + roleConsumer, `["consume"]`},
		{post, nsp + "/permissions/" + roleProdCons, `["produce","consume"]`},
		{post, nsp + "/permissions/subscription/locked", `["other"]`},
		{put, "/admin/v2/persistent/private/" + ns + "/" + topic, ``},
		{put, "/admin/v2/persistent/private/" + ns + "/" + topic + "/subscription/s1", ``},
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

// TestAdminAuthorizationByRoleAndRoute runs every admin route as every
// role against Pulsar's mapping (adminRouteTable), in a namespace with
// ordinary names and in one whose names say "subscription" (issue #31's
// V1: the stub once took any path containing "/subscription" for a
// consume action, so a consume-only role could delete, terminate and set
// policies on such a topic; V2: a produce-only role could read message
// bodies through examinemessage, position/{n} and ledger/{l}/entry/{e}).
func TestAdminAuthorizationByRoleAndRoute(t *testing.T) {
	f := newAdminAuthzFixture(t)
	for _, target := range []struct{ ns, topic string }{{"auth", "t"}, {"subscriptions", "subscription-events"}} {
		for _, row := range adminRouteTable {
			f.setUp(t, target.ns, target.topic)
			path := concretePath(row.pattern, target.ns, target.topic, "s1")
			for _, role := range testAdminRoles { // the super user last: what it changes, setUp restores
				f.checkAdminDecision(t, role, row.method, path, row.need, false)
			}
		}
	}
}

// TestAdminSubscriptionOpsHonourSubscriptionRoles: a subscription the
// namespace grants to other roles only (subscription_auth_roles) is closed
// to a consume role through the admin API too, as on SUBSCRIBE.
func TestAdminSubscriptionOpsHonourSubscriptionRoles(t *testing.T) {
	f := newAdminAuthzFixture(t)
	f.setUp(t, "auth", "t")
	for _, row := range adminRouteTable {
		if !strings.Contains(row.pattern, "{sub}") || row.need != needConsume {
			continue
		}
		path := concretePath(row.pattern, "auth", "t", "locked")
		for _, role := range []string{roleConsumer, roleProdCons, roleTenant} {
			f.checkAdminDecision(t, role, row.method, path, row.need, true)
		}
		// "other" has the subscription but no consume grant.
		if code, body := f.do("other", row.method, path, ""); code != http.StatusUnauthorized {
			t.Errorf("%s %s as other (no consume grant): %d %s, want 401", row.method, path, code, body)
		}
	}
}

// TestAdminMessageBodiesNeedConsume is issue #31's V2 with a message in
// the topic: a produce-only role reads no message body through the admin
// API (PEEK_MESSAGES and GET_SUBSCRIPTIONS need consume); a consume role
// does.
func TestAdminMessageBodiesNeedConsume(t *testing.T) {
	f := newAdminAuthzFixture(t)
	f.setUp(t, "auth", "t")
	nc, err := f.b.Dial(t.Context(), "tcp", "stub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	c := dialRawOn(t, nc)
	if cmd := c.connectWith("token", []byte(f.tokens[roleProducer])); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	pos := rawProduce(t, c, "persistent://private/auth/t", []string{"secret body"})[0]
	const base = "/admin/v2/persistent/private/auth/t"
	paths := []string{
		base + "/examinemessage?initialPosition=earliest&messagePosition=1",
		base + "/subscription/s1/position/1",
		fmt.Sprintf("%s/ledger/%d/entry/%d", base, pos.Ledger, pos.Entry),
		base + "/subscriptions",
	}
	for _, p := range paths {
		if code, body := f.do(roleProducer, get, p, ""); code != http.StatusUnauthorized || strings.Contains(body, "secret") {
			t.Errorf("GET %s as producer: %d %s, want 401 and no body", p, code, body)
		}
	}
	for _, p := range paths[:3] {
		if code, body := f.do(roleConsumer, get, p, ""); code != http.StatusOK || !strings.Contains(body, "secret body") {
			t.Errorf("GET %s as consumer: %d %q, want 200 with the body", p, code, body)
		}
	}
	if code, body := f.do(roleConsumer, get, paths[3], ""); code != http.StatusOK || !strings.Contains(body, "s1") {
		t.Errorf("GET %s as consumer: %d %s, want 200 listing s1", paths[3], code, body)
	}
}

// TestConsumeRoleCannotChangeTopicsNamedSubscription is issue #31's V1 as
// it was probed: a consume-only role deletes, terminates and sets a policy
// on nothing, whatever the names say; the topic and its policies stay.
func TestConsumeRoleCannotChangeTopicsNamedSubscription(t *testing.T) {
	f := newAdminAuthzFixture(t)
	f.setUp(t, "subscriptions", "subscription-events")
	f.setUp(t, "auth", "topic-a")
	const events = "/admin/v2/persistent/private/subscriptions/subscription-events"
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{del, events + "?force=true", "", http.StatusForbidden},      // DELETE_TOPIC
		{post, events + "/terminate", "", http.StatusUnauthorized},   // TERMINATE
		{put, events + "/unload", "", http.StatusUnauthorized},       // UNLOAD
		{post, events + "/messageTTL", "5", http.StatusForbidden},    // a topic policy
		{del, events + "/subscription/s1", "", http.StatusNoContent}, // UNSUBSCRIBE is the consumer's
		{put, events + "/subscription/s1", "", http.StatusNoContent}, // and so is SUBSCRIBE
		{post, "/admin/v2/persistent/private/auth/topic-a/subscriptionDispatchRate", `{"dispatchThrottlingRateInMsg":1}`, http.StatusForbidden},
	} {
		if code, body := f.do(roleConsumer, c.method, c.path, c.body); code != c.want {
			t.Errorf("%s %s as consumer: %d %s, want %d", c.method, c.path, code, body, c.want)
		}
	}
	if code, body := f.do(roleSuper, get, events+"/stats", ""); code != http.StatusOK {
		t.Errorf("the topic is gone: %d %s", code, body)
	}
	for _, p := range []string{events + "/messageTTL", "/admin/v2/persistent/private/auth/topic-a/subscriptionDispatchRate"} {
		if code, body := f.do(roleSuper, get, p, ""); code != http.StatusNoContent {
			t.Errorf("GET %s: %d %s, want no policy set (204)", p, code, body)
		}
	}
	// Producing still works: the topic was not terminated.
	nc, err := f.b.Dial(t.Context(), "tcp", "stub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	c := dialRawOn(t, nc)
	if cmd := c.connectWith("token", []byte(f.tokens[roleProdCons])); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	rawProduce(t, c, "persistent://private/subscriptions/subscription-events", []string{"still open"})
}

// TestAdminTopicGrantsCountLikeNamespaceGrants: a grant on one topic opens
// that topic's operations in the admin API, as on the binary protocol, and
// no other topic's, nor the namespace's lists.
func TestAdminTopicGrantsCountLikeNamespaceGrants(t *testing.T) {
	f := newAdminAuthzFixture(t)
	f.setUp(t, "auth", "t")
	f.setUp(t, "auth", "u")
	if code, body := f.do(roleSuper, post, "/admin/v2/persistent/private/auth/t/permissions/alice", `["consume"]`); code != http.StatusNoContent {
		t.Fatalf("grant: %d %s", code, body)
	}
	f.tokens["alice"] = hs256(t, []byte(adminAuthzSecret), jwtClaims{"sub": "alice"})
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{get, "/admin/v2/persistent/private/auth/t/subscription/s1/position/1", http.StatusNotFound}, // served: no message
		{get, "/admin/v2/persistent/private/auth/t/stats", http.StatusOK},
		{post, "/admin/v2/persistent/private/auth/t/messageTTL", http.StatusForbidden}, // a topic policy
		{get, "/admin/v2/persistent/private/auth/u/stats", http.StatusUnauthorized},
		{get, "/admin/v2/persistent/private/auth/u/subscription/s1/position/1", http.StatusUnauthorized},
		{get, "/admin/v2/namespaces/private/auth/topics", http.StatusForbidden},
	} {
		if code, body := f.do("alice", c.method, c.path, ""); code != c.want {
			t.Errorf("%s %s as alice: %d %s, want %d", c.method, c.path, code, body, c.want)
		}
	}
}

// TestProduceConsumeRoleOnTheBinaryProtocol: a role the namespace grants
// both produce and consume may look up, produce, subscribe and list the
// namespace's topics over the binary protocol.
func TestProduceConsumeRoleOnTheBinaryProtocol(t *testing.T) {
	f := newAdminAuthzFixture(t)
	f.setUp(t, "auth", "t")
	nc, err := f.b.Dial(t.Context(), "tcp", "stub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	c := dialRawOn(t, nc)
	if cmd := c.connectWith("token", []byte(f.tokens[roleProdCons])); cmd.GetType() != proto.BaseCommand_CONNECTED {
		t.Fatal(cmd)
	}
	const topic = "persistent://private/auth/t"
	if r := lookupRaw(c, topic); r.GetResponse() != proto.CommandLookupTopicResponse_Connect {
		t.Errorf("lookup: %v", r)
	}
	if !c.produce(topic) {
		t.Error("produce refused")
	}
	if !c.subscribe(topic, "s") {
		t.Error("subscribe refused")
	}
	if _, cerr := c.topicsOfNamespace("private/auth"); cerr != nil {
		t.Errorf("topics of namespace: %v", cerr)
	}
}
