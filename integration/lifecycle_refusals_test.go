package integration

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// The lifecycle part of issue 32: forced deletion, tenant and namespace
// limits, topic-level policies switched off, inactive topics deleted and
// subscriptions expired, as a Pulsar broker with the same config. The rows
// that need no broker option run against a real Pulsar too
// (PULSARGO_TEST_URL, PULSARGO_TEST_ADMIN_URL); the others drive the stub's
// clock.

// httpCall sends one request with a JSON body and returns status and body.
func httpCall(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(out)
}

// A broker with Pulsar's defaults (forceDeleteNamespaceAllowed and
// forceDeleteTenantAllowed false, as the official suite's standalone.conf
// leaves them) refuses ?force=true with 405; without force a namespace with
// topics is 409, and an empty one goes.
func TestRefusalForceDeleteNotAllowed(t *testing.T) {
	e := newAdminEnv(t)
	ns := newPolicyNamespace(t, e, "forcedel")
	require.NoError(t, e.admin.Topics().Create(topicName(t, "persistent://"+ns+"/t"), 0))
	code, body := httpCall(t, http.MethodDelete, e.web+"/admin/v2/namespaces/"+ns+"?force=true", "")
	assert.Equal(t, http.StatusMethodNotAllowed, code, body)
	assert.Contains(t, body, "Broker doesn't allow forced deletion of namespaces")
	code, body = httpCall(t, http.MethodDelete, e.web+"/admin/v2/tenants/public?force=true", "")
	assert.Equal(t, http.StatusMethodNotAllowed, code, body)
	assert.Contains(t, body, "Broker doesn't allow forced deletion of tenants")
	code, body = httpCall(t, http.MethodDelete, e.web+"/admin/v2/namespaces/"+ns, "")
	assert.Equal(t, http.StatusConflict, code, body)
	require.NoError(t, e.admin.Topics().Delete(topicName(t, "persistent://"+ns+"/t"), false, true))
	require.NoError(t, e.admin.Namespaces().DeleteNamespace(ns))
}

// The admin API's subscription creation counts against the namespace's
// maxSubscriptionsPerTopic as SUBSCRIBE does: Pulsar's NotAllowedException,
// 409.
func TestRefusalAdminSubscriptionMax(t *testing.T) {
	e := newAdminEnv(t)
	ns := policyNamespace(t, e, "adminsubs", map[string]string{"maxSubscriptionsPerTopic": "1"})
	tn := topicName(t, "persistent://"+ns+"/t")
	require.NoError(t, e.admin.Topics().Create(tn, 0))
	require.NoError(t, e.admin.Subscriptions().Create(tn, "one", utils.Earliest))
	wantStatus(t, e.admin.Subscriptions().Create(tn, "two", utils.Earliest), http.StatusConflict, "second subscription")
}

// lifecycleStub starts the stub from config lines, on a fake clock.
func lifecycleStub(t *testing.T, lines ...string) (*adminEnv, *brokerstub.FakeClock) {
	t.Helper()
	cfg, err := brokerstub.ParseConfig(strings.NewReader(strings.Join(lines, "\n")))
	require.NoError(t, err)
	require.Empty(t, cfg.Ignored)
	clk := brokerstub.NewFakeClock(time.Now())
	cfg.Options.Clock = clk
	return newAdminEnv(t, cfg.Options), clk
}

// Broker config: forced deletion allowed, maxTenants, maxNamespacesPerTenant
// (Pulsar refuses past more than the limit), topic-level policies off.
func TestRefusalTenancyBrokerConfig(t *testing.T) {
	e, _ := lifecycleStub(t, "forceDeleteNamespaceAllowed=true", "forceDeleteTenantAllowed=true",
		"maxTenants=3", "maxNamespacesPerTenant=2", "topicLevelPoliciesEnabled=false", "defaultNumberOfNamespaceBundles=8")
	info := utils.TenantData{AllowedClusters: []string{"standalone"}}
	require.NoError(t, e.admin.Tenants().Create(utils.TenantData{Name: "lc", AllowedClusters: info.AllowedClusters}))
	wantStatus(t, e.admin.Tenants().Create(utils.TenantData{Name: "lc2", AllowedClusters: info.AllowedClusters}), http.StatusPreconditionFailed, "a fourth tenant")
	for _, ns := range []string{"lc/a", "lc/b", "lc/c"} {
		require.NoError(t, e.admin.Namespaces().CreateNamespace(ns))
	}
	wantStatus(t, e.admin.Namespaces().CreateNamespace("lc/d"), http.StatusPreconditionFailed, "a fourth namespace")
	bundles, err := e.admin.Namespaces().GetPolicies("lc/a")
	require.NoError(t, err)
	assert.Equal(t, 8, bundles.Bundles.NumBundles)

	tn := topicName(t, "persistent://lc/a/t")
	require.NoError(t, e.admin.Topics().Create(tn, 0))
	wantStatus(t, e.admin.Topics().SetMessageTTL(tn, 10), http.StatusMethodNotAllowed, "a topic-level policy")

	code, body := httpCall(t, http.MethodDelete, e.web+"/admin/v2/namespaces/lc/a?force=true", "")
	assert.Equal(t, http.StatusNoContent, code, body)
	code, body = httpCall(t, http.MethodDelete, e.web+"/admin/v2/tenants/lc?force=true", "")
	assert.Equal(t, http.StatusNoContent, code, body)
}

// brokerDeleteInactiveTopicsEnabled=true (every standalone.conf): a topic
// whose producer left, without subscriptions, is deleted at the check 60 s
// later; it leaves the topic list and a new producer finds it empty. A
// topic with a subscription stays.
func TestRefusalInactiveTopicDeleted(t *testing.T) {
	e, clk := lifecycleStub(t, "brokerDeleteInactiveTopicsEnabled=true", "brokerDeleteInactiveTopicsFrequencySeconds=60")
	oc := officialClient(t, e.url)
	gone, kept := newTopic(t), newTopic(t)
	for _, topic := range []string{gone, kept} {
		p, err := oc.CreateProducer(producerOpts(topic))
		require.NoError(t, err)
		sendN(t, p, "m", 3)
		p.Close()
	}
	require.NoError(t, e.admin.Subscriptions().Create(topicName(t, kept), "s", utils.Earliest))
	clk.Advance(60 * time.Second)
	parts, topics, err := e.admin.Topics().List(*mustNamespace(t, "public/default"))
	require.NoError(t, err)
	all := fmt.Sprint(parts, topics)
	assert.NotContains(t, all, gone)
	assert.Contains(t, all, kept)

	cons, err := oc.Subscribe(official.ConsumerOptions{Topic: gone, SubscriptionName: "late",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	defer cons.Close()
	expectNothing(t, cons, 300*time.Millisecond)
}

// The namespace's subscription expiration time (minutes): a subscription
// without consumers is deleted at the first check (every 5 minutes) past
// it.
func TestRefusalSubscriptionExpirationPolicy(t *testing.T) {
	e, clk := lifecycleStub(t, "brokerDeleteInactiveTopicsEnabled=false")
	ns := policyNamespace(t, e, "subexp", map[string]string{"subscriptionExpirationTime": "1"})
	topic := "persistent://" + ns + "/t"
	oc := officialClient(t, e.url)
	cons, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	cons.Close()
	clk.Advance(5 * time.Minute)
	clk.Advance(5 * time.Minute)
	subs, err := e.admin.Subscriptions().List(topicName(t, topic))
	require.NoError(t, err)
	assert.NotContains(t, subs, "s")
}
