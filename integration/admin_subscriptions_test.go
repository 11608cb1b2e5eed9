package integration

import (
	"slices"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/pulsargo/sdk/brokerstub"
)

func payloadsOf(msgs []official.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Payload())
	}
	return out
}

func backlog(t *testing.T, e *adminEnv, tn utils.TopicName, sub string) int64 {
	t.Helper()
	st, err := e.admin.Topics().GetStats(tn)
	if err != nil {
		t.Fatal(err)
	}
	return st.Subscriptions[sub].MsgBacklog
}

// TestAdminSubscriptions drives the subscription endpoints and checks each
// effect on a consumer over the binary protocol.
func TestAdminSubscriptions(t *testing.T) {
	e := newAdminEnv(t)
	topic := newTopic(t)
	tn := topicName(t, topic)
	c := officialClient(t, e.url)
	p, err := c.CreateProducer(producerOpts(topic))
	if err != nil {
		t.Fatal(err)
	}
	ids := sendN(t, p, "m", 6)

	// A subscription created over HTTP at the earliest position delivers
	// everything to the consumer that attaches to it later; one created at
	// a message id starts there.
	if err := e.admin.Subscriptions().Create(tn, "from-start", utils.Earliest); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, e.admin.Subscriptions().Create(tn, "from-start", utils.Earliest), 409, "create it again")
	third := utils.MessageID{LedgerID: ids[3].LedgerID(), EntryID: ids[3].EntryID(), PartitionIndex: -1}
	if err := e.admin.Subscriptions().Create(tn, "from-third", third); err != nil {
		t.Fatal(err)
	}
	subs, err := e.admin.Subscriptions().List(tn)
	if err != nil || !slices.Equal(subs, []string{"from-start", "from-third"}) {
		t.Fatalf("subscriptions = %v, %v", subs, err)
	}
	if n := backlog(t, e, tn, "from-third"); n != 3 {
		t.Errorf("backlog of from-third = %d, want 3", n)
	}
	peek, err := e.admin.Subscriptions().PeekMessages(tn, "from-third", 2)
	if err != nil || len(peek) != 2 || string(peek[0].Payload) != "m-3" || string(peek[1].Payload) != "m-4" {
		t.Fatalf("peek = %v, %v; want m-3, m-4", peek, err)
	}
	//lint:ignore SA1019 the single-message form is the ledger/entry endpoint as clients older than GetMessagesByID call it
	msg, err := e.admin.Subscriptions().GetMessageByID(tn, ids[1].LedgerID(), ids[1].EntryID())
	if err != nil || string(msg.Payload) != "m-1" {
		t.Fatalf("message by id = %v, %v; want m-1", msg, err)
	}
	if msg.Properties["publish-time"] == "" {
		t.Errorf("message by id without publish time: %v", msg.Properties)
	}
	//lint:ignore SA1019 as above
	_, err = e.admin.Subscriptions().GetMessageByID(tn, ids[5].LedgerID(), ids[5].EntryID()+100)
	wantStatus(t, err, 404, "message by a missing id")

	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "from-start"})
	if err != nil {
		t.Fatal(err)
	}
	if got := payloadsOf(receiveN(t, cons, 6)); got[0] != "m-0" || got[5] != "m-5" {
		t.Fatalf("from-start got %v", got)
	}

	// Reset by message id, then by time: the subscription redelivers from
	// there. (pulsar-client-go discards, after a reconnect, what it already
	// dequeued, on Pulsar too; so each check uses a new consumer.)
	cons.Close()
	if err := e.admin.Subscriptions().ResetCursorToMessageID(tn, "from-start", utils.MessageID{
		LedgerID: ids[4].LedgerID(), EntryID: ids[4].EntryID(), PartitionIndex: -1}); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, e, tn, "from-start"); n != 2 {
		t.Errorf("backlog after reset to m-4 = %d, want 2", n)
	}
	cons, err = c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "from-start"})
	if err != nil {
		t.Fatal(err)
	}
	if got := payloadsOf(receiveN(t, cons, 2)); !slices.Equal(got, []string{"m-4", "m-5"}) {
		t.Fatalf("after reset to m-4 got %v", got)
	}
	cons.Close()
	if err := e.admin.Subscriptions().ResetCursorToTimestamp(tn, "from-start", time.Now().Add(-time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	}
	cons, err = c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "from-start"})
	if err != nil {
		t.Fatal(err)
	}
	if got := payloadsOf(receiveN(t, cons, 6)); got[0] != "m-0" {
		t.Fatalf("after reset by time got %v", got)
	}
	wantStatus(t, e.admin.Subscriptions().Delete(tn, "from-start"), 412, "delete a subscription with a consumer")
	cons.Close()

	// Skip, skip all and expire move the cursor.
	if err := e.admin.Subscriptions().SkipMessages(tn, "from-third", 2); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, e, tn, "from-third"); n != 1 {
		t.Errorf("backlog after skipping 2 = %d, want 1", n)
	}
	if err := e.admin.Subscriptions().ClearBacklog(tn, "from-third"); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, e, tn, "from-third"); n != 0 {
		t.Errorf("backlog after skip all = %d, want 0", n)
	}
	if err := e.admin.Subscriptions().Create(tn, "to-expire", utils.Earliest); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.Subscriptions().ExpireMessages(tn, "to-expire", 3600); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, e, tn, "to-expire"); n != 6 {
		t.Errorf("backlog after expiring messages older than 1 h = %d, want 6", n)
	}
	// A time of 0 s expires nothing, as Pulsar's expiry check (a TTL of 0 is
	// none); TestAdminExpireAllMessages ages the messages on a fake clock.
	if err := e.admin.Subscriptions().ExpireAllMessages(tn, 0); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, e, tn, "to-expire"); n != 6 {
		t.Errorf("backlog after expiring messages older than 0 s = %d, want 6", n)
	}

	if err := e.admin.Subscriptions().Delete(tn, "from-start"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, e.admin.Subscriptions().Delete(tn, "from-start"), 404, "delete it again")
	wantStatus(t, e.admin.Subscriptions().SkipMessages(tn, "no-such-sub", 1), 404, "skip on a missing subscription")
}

// TestAdminExpireAllMessages: expire-all over HTTP moves every
// subscription past the messages older than the time given, by the
// broker's clock (a fake one here, advanced past the messages' age).
func TestAdminExpireAllMessages(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	e := newAdminEnv(t, brokerstub.Options{Clock: clk})
	topic := newTopic(t)
	tn := topicName(t, topic)
	c := officialClient(t, e.url)
	p, err := c.CreateProducer(producerOpts(topic))
	if err != nil {
		t.Fatal(err)
	}
	sendN(t, p, "m", 3)
	for _, sub := range []string{"s1", "s2"} {
		if err := e.admin.Subscriptions().Create(tn, sub, utils.Earliest); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.admin.Subscriptions().ExpireAllMessages(tn, 60); err != nil {
		t.Fatal(err)
	}
	if n := backlog(t, e, tn, "s1"); n != 3 {
		t.Fatalf("backlog after expiring messages older than 60 s, at once = %d, want 3", n)
	}
	clk.Advance(2 * time.Minute)
	if err := e.admin.Subscriptions().ExpireAllMessages(tn, 60); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"s1", "s2"} {
		if n := backlog(t, e, tn, sub); n != 0 {
			t.Errorf("backlog of %s 2 min later = %d, want 0", sub, n)
		}
	}
}
