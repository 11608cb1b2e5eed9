package integration

import (
	"fmt"
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

// newPolicyNamespace creates a fresh namespace of tenant public.
func newPolicyNamespace(t *testing.T, e *adminEnv, what string) string {
	t.Helper()
	ns := fmt.Sprintf("public/%s-%d", what, topicSeq.Add(1))
	require.NoError(t, e.admin.Namespaces().CreateNamespace(ns))
	return ns
}

// backlogOf reads a subscription's msgBacklog from the topic stats.
func backlogOf(t *testing.T, e *adminEnv, topic, sub string) int64 {
	t.Helper()
	st, err := e.admin.Topics().GetStats(topicName(t, topic))
	require.NoError(t, err)
	return st.Subscriptions[sub].MsgBacklog
}

// TestAdminMessageTTLExpiresBacklog sets a namespace message TTL with the
// official admin client, lets the broker's (fake) clock pass the TTL and
// the expiry check, and sees the backlog expired over the binary protocol:
// the subscription's consumer gets only what was published afterwards. A
// topic's own TTL overrides the namespace's.
func TestAdminMessageTTLExpiresBacklog(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	e := newAdminEnv(t, brokerstub.Options{Clock: clk})
	ns := newPolicyNamespace(t, e, "ttl")
	require.NoError(t, e.admin.Namespaces().SetNamespaceMessageTTL(ns, 60))
	ttl, err := e.admin.Namespaces().GetNamespaceMessageTTL(ns)
	require.NoError(t, err)
	require.Equal(t, 60, ttl)

	client := officialClient(t, e.url)
	expiring, kept := "persistent://"+ns+"/expiring", "persistent://"+ns+"/kept"
	require.NoError(t, e.admin.Topics().Create(topicName(t, kept), 0))
	require.NoError(t, e.admin.Topics().SetMessageTTL(topicName(t, kept), 3600))
	got, err := e.admin.Topics().GetMessageTTL(topicName(t, kept))
	require.NoError(t, err)
	require.Equal(t, 3600, got)
	for _, topic := range []string{expiring, kept} {
		cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
		require.NoError(t, err)
		cons.Close() // the backlog waits for a consumer
		p, err := client.CreateProducer(producerOpts(topic))
		require.NoError(t, err)
		sendN(t, p, "old", 3)
		p.Close()
		require.Equal(t, int64(3), backlogOf(t, e, topic, "s"))
	}

	// The broker's expiry check runs every 5 minutes (Pulsar's default).
	clk.Advance(5*time.Minute + time.Second)
	eventually(t, "backlog expired by the namespace TTL", func() error {
		if n := backlogOf(t, e, expiring, "s"); n != 0 {
			return errorf("backlog %d", n)
		}
		return nil
	})
	assert.Equal(t, int64(3), backlogOf(t, e, kept, "s"), "the topic's hour-long TTL wins")

	cons, err := client.Subscribe(official.ConsumerOptions{Topic: expiring, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	defer cons.Close()
	p, err := client.CreateProducer(producerOpts(expiring))
	require.NoError(t, err)
	defer p.Close()
	_, err = p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("new")})
	require.NoError(t, err)
	m := receiveN(t, cons, 1)[0]
	assert.Equal(t, "new", string(m.Payload()), "the expired messages are not delivered")

	require.NoError(t, e.admin.Namespaces().RemoveNamespaceMessageTTL(ns))
	err = e.admin.Namespaces().SetNamespaceMessageTTL(ns, -1)
	wantStatus(t, err, http.StatusBadRequest, "a negative TTL")
}

// TestAdminRetentionPolicy: with Pulsar's default retention (keep nothing
// consumed) a reader from the earliest message sees only the ledger being
// written once a subscription has acknowledged the full ones; with a
// namespace retention of -1/-1 set through the admin client it sees
// everything. Invalid policies are refused with 400.
func TestAdminRetentionPolicy(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	e := newAdminEnv(t, brokerstub.Options{LedgerRolloverEntries: 2, Clock: clk})
	keepAll := newPolicyNamespace(t, e, "keep")
	require.NoError(t, e.admin.Namespaces().SetRetention(keepAll, utils.NewRetentionPolicies(-1, -1)))
	rp, err := e.admin.Namespaces().GetRetention(keepAll)
	require.NoError(t, err)
	require.Equal(t, utils.NewRetentionPolicies(-1, -1), *rp)
	client := officialClient(t, e.url)

	for _, c := range []struct {
		ns   string
		want []string
	}{
		{"public/default", []string{"m-4"}},
		{keepAll, []string{"m-0", "m-1", "m-2", "m-3", "m-4"}},
	} {
		topic := fmt.Sprintf("persistent://%s/retention-%d", c.ns, topicSeq.Add(1))
		cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		require.NoError(t, err)
		p, err := client.CreateProducer(producerOpts(topic))
		require.NoError(t, err)
		sendN(t, p, "m", 5) // ledgers of 2 entries: the fifth is in the ledger being written
		for _, m := range receiveN(t, cons, 5) {
			require.NoError(t, cons.Ack(m))
		}
		eventually(t, "acknowledged", func() error {
			if n := backlogOf(t, e, topic, "s"); n != 0 {
				return errorf("backlog %d", n)
			}
			return nil
		})
		// Acks beyond the mark-delete rate limit (1/s) are persisted, and
		// trimmed by, the periodic cursor flush (60 s, Pulsar's default).
		clk.Advance(75 * time.Second)
		r, err := client.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID()})
		require.NoError(t, err)
		var got []string
		for r.HasNext() {
			m, err := r.Next(ctxT(t))
			require.NoError(t, err)
			got = append(got, string(m.Payload()))
		}
		r.Close()
		assert.Equal(t, c.want, got, "namespace %s", c.ns)
		st, err := e.admin.Topics().GetInternalStats(topicName(t, topic))
		require.NoError(t, err)
		assert.Equal(t, int64(len(c.want)), st.NumberOfEntries)
		cons.Close()
		p.Close()
	}

	for _, bad := range []utils.RetentionPolicies{utils.NewRetentionPolicies(10, 0), utils.NewRetentionPolicies(-2, 5)} {
		err := e.admin.Namespaces().SetRetention(keepAll, bad)
		wantStatus(t, err, http.StatusBadRequest, fmt.Sprintf("retention %+v", bad))
	}
}

// TestAdminDelayedDeliveryPolicy: switched off by the namespace policy
// (which the official admin client has no method for: plain HTTP) or a
// topic's (through the admin client), a message sent with DeliverAfter
// arrives at once on a Shared subscription.
func TestAdminDelayedDeliveryPolicy(t *testing.T) {
	e := newAdminEnv(t, brokerstub.Options{Clock: brokerstub.NewFakeClock(time.Now())})
	ns := newPolicyNamespace(t, e, "delay")
	client := officialClient(t, e.url)
	receiveDelayed := func(topic string) {
		t.Helper()
		cons, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
		require.NoError(t, err)
		defer cons.Close()
		p, err := client.CreateProducer(producerOpts(topic))
		require.NoError(t, err)
		defer p.Close()
		_, err = p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("later"), DeliverAfter: time.Hour})
		require.NoError(t, err)
		assert.Equal(t, "later", string(receiveN(t, cons, 1)[0].Payload()), "delayed delivery off: at once")
	}

	req, err := http.NewRequest(http.MethodPost, e.web+"/admin/v2/namespaces/"+ns+"/delayedDelivery",
		strings.NewReader(`{"active":false,"tickTime":1000,"maxDeliveryDelayInMillis":0}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	code, body, _ := httpGet(t, e.web+"/admin/v2/namespaces/"+ns+"/delayedDelivery")
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"active":false,"tickTime":1000,"maxDeliveryDelayInMillis":0}`, body)
	receiveDelayed("persistent://" + ns + "/off-by-namespace")

	topic := newTopic(t)
	require.NoError(t, e.admin.Topics().Create(topicName(t, topic), 0))
	require.NoError(t, e.admin.Topics().SetDelayedDelivery(topicName(t, topic), utils.DelayedDeliveryData{Active: false, TickTime: 1000}))
	dd, err := e.admin.Topics().GetDelayedDelivery(topicName(t, topic))
	require.NoError(t, err)
	assert.False(t, dd.Active)
	receiveDelayed(topic)
}
