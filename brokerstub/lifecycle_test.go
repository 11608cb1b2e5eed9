package brokerstub

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// hasSubscription reports whether the topic has the subscription.
func hasSubscription(b *Broker, topic, sub string) bool {
	_, _, err := b.Cursor(topic, sub)
	return err == nil
}

// TestSubscriptionExpires: with SubscriptionExpiration (10 min), a durable
// subscription whose consumer left is deleted at the first check (every 5
// min) more than 10 minutes later; one with a consumer stays; the
// namespace's subscription_expiration_time_minutes and the topic's
// subscriptionExpirationTime override the broker's.
func TestSubscriptionExpires(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{Clock: clk, Lifecycle: Lifecycle{SubscriptionExpiration: 10 * time.Minute}})
	topic := "persistent://public/default/subexp"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "idle", proto.CommandSubscribe_Exclusive, 1, 0)
	c.subscribeTyped(topic, "busy", proto.CommandSubscribe_Exclusive, 2, 0)
	c.closeConsumer(1)
	for range 2 {
		clk.Advance(5 * time.Minute)
	}
	assert.True(t, hasSubscription(b, topic, "idle"), "idle for exactly 10 minutes: kept")
	clk.Advance(5 * time.Minute)
	assert.False(t, hasSubscription(b, topic, "idle"), "idle for 15 minutes: expired")
	assert.True(t, hasSubscription(b, topic, "busy"), "a connected consumer keeps it")

	// The topic's policy (1 minute) wins over the broker's.
	setPolicy(t, b, "/admin/v2/persistent/public/default/subexp/subscriptionExpirationTime", "1")
	c.closeConsumer(2)
	clk.Advance(5 * time.Minute)
	assert.False(t, hasSubscription(b, topic, "busy"))

	// The namespace's 0 wins over the broker's: never.
	setPolicy(t, b, "/admin/v2/namespaces/public/default/subscriptionExpirationTime", "0")
	other := "persistent://public/default/subexp-ns"
	c.subscribeTyped(other, "s", proto.CommandSubscribe_Exclusive, 3, 0)
	c.closeConsumer(3)
	for range 6 {
		clk.Advance(5 * time.Minute)
	}
	assert.True(t, hasSubscription(b, other, "s"))
}

// TestSubscriptionExpiryOffByDefault: Pulsar's default expiration is 0.
func TestSubscriptionExpiryOffByDefault(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{Clock: clk})
	topic := "persistent://public/default/subexp-off"
	c := dialKS(t, b)
	c.subscribeTyped(topic, "s", proto.CommandSubscribe_Exclusive, 1, 0)
	c.closeConsumer(1)
	for range 4 {
		clk.Advance(time.Hour)
	}
	assert.True(t, hasSubscription(b, topic, "s"))
}

// TestDedupForgetsInactiveProducer: a producer name disconnected for longer
// than DedupProducerInactivityTimeout (checked every third of it) loses its
// last sequence id: the next producer of that name starts at -1 and an old
// sequence id is stored again. A connected producer is not forgotten.
func TestDedupForgetsInactiveProducer(t *testing.T) {
	clk := NewFakeClock(ttlT0)
	b := RunT(t, Options{Clock: clk, BrokerDeduplicationEnabled: true,
		Lifecycle: Lifecycle{DedupProducerInactivityTimeout: 30 * time.Minute, DisableInactiveTopicDeletion: true}})
	c := dialRaw(t, b)
	c.connect()
	namedProducer(t, c, 1, "gone")
	namedProducer(t, c, 2, "stays")
	sendSeq(t, c, 1, "gone", 5, 0, nil)
	sendSeq(t, c, 2, "stays", 7, 0, nil)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{
		ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(90)}})
	c.expect(proto.BaseCommand_SUCCESS)
	for range 3 {
		clk.Advance(10 * time.Minute)
	}
	assert.Equal(t, int64(5), namedProducer(t, c, 3, "gone"), "disconnected 30 minutes at the check: not yet over the timeout")
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{
		ProducerId: gproto.Uint64(3), RequestId: gproto.Uint64(91)}})
	c.expect(proto.BaseCommand_SUCCESS)
	for range 4 {
		clk.Advance(10 * time.Minute)
	}
	assert.Equal(t, int64(-1), namedProducer(t, c, 4, "gone"), "forgotten")
	assert.False(t, isDupReceipt(sendSeq(t, c, 4, "gone", 5, 0, nil)), "an old sequence id is stored again")
	assert.True(t, isDupReceipt(sendSeq(t, c, 2, "stays", 7, 0, nil)), "a connected producer is remembered")
}

// ledgerOf sends one message and returns its ledger id.
func ledgerOf(p *ksProducer) int64 { return p.Send("k", "m").Ledger }

// TestLedgerRolloverByTimeAndSize: a topic starts a new ledger when the
// current one is LedgerMaxRolloverTime old (the periodic check), holds
// LedgerMaxSize bytes, or had no append for LedgerInactiveRolloverTime; a
// full one waits for LedgerMinRolloverTime.
func TestLedgerRolloverByTimeAndSize(t *testing.T) {
	start := func(t *testing.T, l Lifecycle, entries int) (*FakeClock, *ksProducer) {
		clk := NewFakeClock(ttlT0)
		l.DisableInactiveTopicDeletion = true
		b := RunT(t, Options{Clock: clk, Lifecycle: l, LedgerRolloverEntries: entries})
		c := dialKS(t, b)
		return clk, c.producer("persistent://public/default/roll", 1)
	}
	t.Run("max time", func(t *testing.T) {
		clk, p := start(t, Lifecycle{LedgerMaxRolloverTime: 10 * time.Minute}, 0)
		first := ledgerOf(p)
		clk.Advance(9 * time.Minute)
		assert.Equal(t, first, ledgerOf(p))
		clk.Advance(time.Minute)
		p.c.barrier(1)
		assert.Greater(t, ledgerOf(p), first, "10 minutes old at the check: rolled over")
	})
	t.Run("max size", func(t *testing.T) {
		_, p := start(t, Lifecycle{LedgerMaxSize: 1}, 0)
		first := ledgerOf(p)
		assert.Greater(t, ledgerOf(p), first, "one entry fills 1 byte")
	})
	t.Run("min time", func(t *testing.T) {
		clk, p := start(t, Lifecycle{LedgerMinRolloverTime: 10 * time.Minute}, 1)
		first := ledgerOf(p)
		assert.Equal(t, first, ledgerOf(p), "full by entries, but younger than 10 minutes")
		clk.Advance(10*time.Minute + time.Millisecond)
		assert.Equal(t, first, ledgerOf(p), "the append after 10 minutes closes it")
		assert.Greater(t, ledgerOf(p), first)
	})
	t.Run("inactive", func(t *testing.T) {
		clk, p := start(t, Lifecycle{LedgerInactiveRolloverTime: time.Minute}, 0)
		first := ledgerOf(p)
		clk.Advance(time.Minute)
		p.c.barrier(1)
		assert.Equal(t, first, ledgerOf(p), "not idle for more than a minute at the check")
		clk.Advance(time.Minute)
		clk.Advance(time.Minute)
		p.c.barrier(1)
		assert.Greater(t, ledgerOf(p), first)
	})
}

// TestTenancyRefusals: forced deletion refused by default (405), the tenant
// and namespace limits (412), topic-level policies disabled (405), and the
// bundles a new namespace reports.
func TestTenancyRefusals(t *testing.T) {
	b := RunT(t, Options{Tenancy: Tenancy{MaxTenants: 3, MaxNamespacesPerTenant: 1, DisableTopicLevelPolicies: true}})
	expect := func(method, path, body string, code int, text string) {
		t.Helper()
		got, out := adminDo(t, b, method, path, body)
		assert.Equal(t, code, got, "%s %s: %s", method, path, out)
		if text != "" {
			assert.Contains(t, out, text)
		}
	}
	expect(http.MethodDelete, "/admin/v2/namespaces/public/default?force=true", "", http.StatusMethodNotAllowed, engine.MsgNoForceDeleteNamespace)
	expect(http.MethodDelete, "/admin/v2/tenants/public?force=true", "", http.StatusMethodNotAllowed, engine.MsgNoForceDeleteTenant)
	expect(http.MethodPut, "/admin/v2/tenants/t3", `{"allowedClusters":["standalone"]}`, http.StatusNoContent, "")
	expect(http.MethodPut, "/admin/v2/tenants/t4", `{"allowedClusters":["standalone"]}`, http.StatusPreconditionFailed, engine.MsgMaxTenants)
	// Pulsar refuses only when the tenant has more than the limit.
	expect(http.MethodPut, "/admin/v2/namespaces/t3/a", "", http.StatusNoContent, "")
	expect(http.MethodPut, "/admin/v2/namespaces/t3/b", "", http.StatusNoContent, "")
	expect(http.MethodPut, "/admin/v2/namespaces/t3/c", "", http.StatusPreconditionFailed, "Exceed the maximum number of namespace in tenant :t3")
	expect(http.MethodPut, "/admin/v2/persistent/public/default/tp", "", http.StatusNoContent, "")
	expect(http.MethodPost, "/admin/v2/persistent/public/default/tp/messageTTL", "10", http.StatusMethodNotAllowed, engine.MsgTopicPoliciesDisabled)
	expect(http.MethodGet, "/admin/v2/persistent/public/default/tp/messageTTL", "", http.StatusMethodNotAllowed, engine.MsgTopicPoliciesDisabled)

	_, out := adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/t3/a", "")
	assert.Contains(t, strings.ReplaceAll(out, " ", ""),
		`"bundles":{"boundaries":["0x00000000","0x40000000","0x80000000","0xc0000000","0xffffffff"],"numBundles":4}`)
	_, out = adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/public/default/bundles", "")
	assert.Contains(t, strings.ReplaceAll(out, " ", ""), `"numBundles":4`, "the bundles admin call")
	expect(http.MethodPut, "/admin/v2/namespaces/public/two", `{"bundles":{"numBundles":2}}`, http.StatusNoContent, "")
	_, out = adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/public/two", "")
	assert.Contains(t, strings.ReplaceAll(out, " ", ""), `"bundles":{"boundaries":["0x00000000","0x80000000","0xffffffff"],"numBundles":2}`)
}

// TestTenancyForceDeleteAllowed: with both keys set, forced deletion
// deletes a namespace and a tenant with their topics.
func TestTenancyForceDeleteAllowed(t *testing.T) {
	b := RunT(t, Options{Tenancy: Tenancy{ForceDeleteNamespaceAllowed: true, ForceDeleteTenantAllowed: true}})
	require.NoError(t, b.CreateNamespace("t/ns"))
	code, out := adminDo(t, b, http.MethodPut, "/admin/v2/persistent/t/ns/x", "")
	require.Equal(t, http.StatusNoContent, code, out)
	code, out = adminDo(t, b, http.MethodDelete, "/admin/v2/namespaces/t/ns?force=true", "")
	assert.Equal(t, http.StatusNoContent, code, out)
	require.NoError(t, b.CreateNamespace("t/ns2"))
	code, out = adminDo(t, b, http.MethodDelete, "/admin/v2/tenants/t?force=true", "")
	assert.Equal(t, http.StatusNoContent, code, out)
}

// TestLifecycleConfigKeys: ParseConfig reads the keys, with Pulsar's
// defaults for the ones a file leaves out, and refuses a bad mode.
func TestLifecycleConfigKeys(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader("brokerDeleteInactiveTopicsFrequencySeconds=30\n" +
		"brokerDeleteInactiveTopicsMode=delete_when_subscriptions_caught_up\nforceDeleteNamespaceAllowed=true\n" +
		"systemTopicEnabled=false\nmanagedLedgerMaxSizePerLedgerMbytes=1\n"))
	require.NoError(t, err)
	l, ten := cfg.Options.Lifecycle, cfg.Options.Tenancy
	assert.Equal(t, 30*time.Second, l.InactiveTopicCheckInterval)
	assert.Equal(t, 30*time.Second, l.InactiveTopicMaxDuration, "the max inactive duration defaults to the frequency")
	assert.Equal(t, engine.DeleteWhenSubscriptionsCaughtUp, l.InactiveTopicDeleteMode)
	assert.Equal(t, 10*time.Minute, l.LedgerMinRolloverTime, "Pulsar's default")
	assert.Equal(t, 240*time.Minute, l.LedgerMaxRolloverTime, "Pulsar's default")
	assert.Equal(t, int64(1<<20), l.LedgerMaxSize)
	assert.Equal(t, 6*time.Hour, l.DedupProducerInactivityTimeout)
	assert.True(t, ten.ForceDeleteNamespaceAllowed)
	assert.True(t, ten.DisableTopicLevelPolicies)
	assert.Equal(t, 4, ten.DefaultNumberOfNamespaceBundles)

	_, err = ParseConfig(strings.NewReader("brokerDeleteInactiveTopicsMode=sometimes\n"))
	assert.ErrorContains(t, err, "brokerDeleteInactiveTopicsMode=sometimes")
	_, err = Start(Options{Lifecycle: Lifecycle{InactiveTopicDeleteMode: "sometimes"}})
	assert.ErrorContains(t, err, "InactiveTopicDeleteMode")
}
