package brokerstub

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/internal/proto"
)

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
		if code, body := f.do(roleProducer, admin.Get, p, ""); code != http.StatusUnauthorized || strings.Contains(body, "secret") {
			t.Errorf("GET %s as producer: %d %s, want 401 and no body", p, code, body)
		}
	}
	for _, p := range paths[:3] {
		if code, body := f.do(roleConsumer, admin.Get, p, ""); code != http.StatusOK || !strings.Contains(body, "secret body") {
			t.Errorf("GET %s as consumer: %d %q, want 200 with the body", p, code, body)
		}
	}
	if code, body := f.do(roleConsumer, admin.Get, paths[3], ""); code != http.StatusOK || !strings.Contains(body, "s1") {
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
		{admin.Del, events + "?force=true", "", http.StatusForbidden},      // DELETE_TOPIC
		{admin.Post, events + "/terminate", "", http.StatusUnauthorized},   // TERMINATE
		{admin.Put, events + "/unload", "", http.StatusUnauthorized},       // UNLOAD
		{admin.Post, events + "/messageTTL", "5", http.StatusForbidden},    // a topic policy
		{admin.Del, events + "/subscription/s1", "", http.StatusNoContent}, // UNSUBSCRIBE is the consumer's
		{admin.Put, events + "/subscription/s1", "", http.StatusNoContent}, // and so is SUBSCRIBE
		{admin.Post, "/admin/v2/persistent/private/auth/topic-a/subscriptionDispatchRate", `{"dispatchThrottlingRateInMsg":1}`, http.StatusForbidden},
	} {
		if code, body := f.do(roleConsumer, c.method, c.path, c.body); code != c.want {
			t.Errorf("%s %s as consumer: %d %s, want %d", c.method, c.path, code, body, c.want)
		}
	}
	if code, body := f.do(roleSuper, admin.Get, events+"/stats", ""); code != http.StatusOK {
		t.Errorf("the topic is gone: %d %s", code, body)
	}
	for _, p := range []string{events + "/messageTTL", "/admin/v2/persistent/private/auth/topic-a/subscriptionDispatchRate"} {
		if code, body := f.do(roleSuper, admin.Get, p, ""); code != http.StatusNoContent {
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
	if code, body := f.do(roleSuper, admin.Post, "/admin/v2/persistent/private/auth/t/permissions/alice", `["consume"]`); code != http.StatusNoContent {
		t.Fatalf("grant: %d %s", code, body)
	}
	f.tokens["alice"] = hs256(t, []byte(adminAuthzSecret), jwtClaims{"sub": "alice"})
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{admin.Get, "/admin/v2/persistent/private/auth/t/subscription/s1/position/1", http.StatusNotFound}, // served: no message
		{admin.Get, "/admin/v2/persistent/private/auth/t/stats", http.StatusOK},
		{admin.Post, "/admin/v2/persistent/private/auth/t/messageTTL", http.StatusForbidden}, // a topic policy
		{admin.Get, "/admin/v2/persistent/private/auth/u/stats", http.StatusUnauthorized},
		{admin.Get, "/admin/v2/persistent/private/auth/u/subscription/s1/position/1", http.StatusUnauthorized},
		{admin.Get, "/admin/v2/namespaces/private/auth/topics", http.StatusForbidden},
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
