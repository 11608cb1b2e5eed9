package integration

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"

	"github.com/pulsargo/sdk/brokerstub"
)

// restPath is a topic's admin path ("persistent/tenant/ns/local").
func restPath(topic string) string { return strings.Replace(topic, "://", "/", 1) }

// TestAdminMessages reads messages over HTTP the ways clients do: by
// ledger and entry through the official admin client (a batch comes back
// as its messages), the raw entry with Pulsar's
// X-Pulsar-* headers, examinemessage (which the admin client has no method
// for) from either end, and a peek on a subscription nobody made, which
// creates it at the earliest message, so a consumer attaching to it later
// receives everything.
func TestAdminMessages(t *testing.T) {
	e := newAdminEnv(t)
	topic := newTopic(t)
	tn := topicName(t, topic)
	c := officialClient(t, e.url)
	p, err := c.CreateProducer(official.ProducerOptions{Topic: topic, Name: "msg-producer", DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	first, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("plain"), Key: "k1",
		Properties: map[string]string{"a": "1"}, EventTime: time.UnixMilli(1_700_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	bp, err := c.CreateProducer(official.ProducerOptions{Topic: topic, BatchingMaxMessages: 3, BatchingMaxPublishDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var batchID official.MessageID
	for i := range 3 {
		bp.SendAsync(ctxT(t), &official.ProducerMessage{Payload: []byte{'b', byte('0' + i)}},
			func(id official.MessageID, _ *official.ProducerMessage, err error) {
				if err == nil && i == 2 {
					batchID = id
				}
			})
	}
	if err := bp.FlushWithCtx(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	bp.Close()

	// The batch through the admin client: its three messages.
	msgs, err := e.admin.Subscriptions().GetMessagesByID(tn, batchID.LedgerID(), batchID.EntryID())
	if err != nil || len(msgs) != 3 {
		t.Fatalf("messages of the batch entry = %d, %v; want 3", len(msgs), err)
	}
	for i, m := range msgs {
		if string(m.Payload) != "b"+string(rune('0'+i)) || m.MessageID.BatchIndex != i {
			t.Errorf("batch message %d: %q, id %+v", i, m.Payload, m.MessageID)
		}
	}

	// The plain entry over HTTP: payload as the body, metadata in headers.
	base := e.web + "/admin/v2/" + restPath(topic)
	code, body, h := httpGet(t, base+"/ledger/"+itoa(first.LedgerID())+"/entry/"+itoa(first.EntryID()))
	if code != 200 || body != "plain" {
		t.Fatalf("entry: %d %q", code, body)
	}
	var props map[string]string
	if err := json.Unmarshal([]byte(h.Get("X-Pulsar-Property")), &props); err != nil || props["a"] != "1" {
		t.Errorf("X-Pulsar-Property = %q", h.Get("X-Pulsar-Property"))
	}
	for k, want := range map[string]string{
		"X-Pulsar-Message-ID": itoa(first.LedgerID()) + ":" + itoa(first.EntryID()), "X-Pulsar-producer-name": "msg-producer",
		"X-Pulsar-partition-key": "k1", "X-Pulsar-sequence-id": "0", "X-Pulsar-event-time": "2023-11-14T22:13:20.000+0000",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if h.Get("X-Pulsar-publish-time") == "" {
		t.Errorf("no X-Pulsar-publish-time")
	}
	code, _, h = httpGet(t, base+"/ledger/"+itoa(batchID.LedgerID())+"/entry/"+itoa(batchID.EntryID()))
	if code != 200 || h.Get("X-Pulsar-num-batch-message") != "3" {
		t.Errorf("batch entry: %d, X-Pulsar-num-batch-message %q", code, h.Get("X-Pulsar-num-batch-message"))
	}

	// examinemessage counts from either end of the topic.
	if code, body, _ := httpGet(t, base+"/examinemessage?initialPosition=earliest&messagePosition=1"); code != 200 || body != "plain" {
		t.Errorf("examine earliest 1: %d %q", code, body)
	}
	if code, _, h := httpGet(t, base+"/examinemessage?initialPosition=latest&messagePosition=1"); code != 200 ||
		h.Get("X-Pulsar-Message-ID") != itoa(batchID.LedgerID())+":"+itoa(batchID.EntryID()) {
		t.Errorf("examine latest 1: %d, id %q", code, h.Get("X-Pulsar-Message-ID"))
	}
	if code, _, _ := httpGet(t, base+"/examinemessage?initialPosition=earliest&messagePosition=3"); code != 412 {
		t.Errorf("examine past the end: %d, want 412", code)
	}

	// Peek on a subscription that does not exist: created at the earliest.
	peek, err := e.admin.Subscriptions().PeekMessages(tn, "made-by-peek", 1)
	if err != nil || len(peek) != 1 || string(peek[0].Payload) != "plain" {
		t.Fatalf("peek of a new subscription = %v, %v", peek, err)
	}
	if subs, err := e.admin.Subscriptions().List(tn); err != nil || !slices.Contains(subs, "made-by-peek") {
		t.Fatalf("subscriptions after the peek = %v, %v", subs, err)
	}
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "made-by-peek"})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	if got := payloadsOf(receiveN(t, cons, 4)); !slices.Equal(got, []string{"plain", "b0", "b1", "b2"}) {
		t.Errorf("the consumer of the peeked subscription got %v", got)
	}
}

// TestAdminTopicListsAndAutoCreation: the topic lists the admin clients ask
// for (partitioned and not, through the admin client; a namespace's topics
// by mode, which it has no parameter for), and partitioned metadata with
// checkAllowAutoCreation, which creates the topic as the broker's
// auto-creation settings say, as the official client's HTTP lookup asks.
func TestAdminTopicListsAndAutoCreation(t *testing.T) {
	e := newAdminEnv(t, brokerstub.Options{AutoTopicCreationPartitions: 3})
	e.needStub(t)
	parted, plain := newTopic(t), newTopic(t)
	if err := e.admin.Topics().Create(topicName(t, parted), 2); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.Topics().Create(topicName(t, plain), 0); err != nil {
		t.Fatal(err)
	}
	ps, nps, err := e.admin.Topics().List(*mustNamespace(t, "public/default"))
	if err != nil || !slices.Contains(ps, parted) || slices.Contains(ps, plain) || !slices.Contains(nps, plain) {
		t.Errorf("lists: partitioned %v, non-partitioned %v, %v", ps, nps, err)
	}
	for mode, want := range map[string]bool{"": true, "PERSISTENT": true, "ALL": true, "NON_PERSISTENT": false} {
		code, body, _ := httpGet(t, e.web+"/admin/v2/namespaces/public/default/topics?mode="+mode)
		if code != 200 || strings.Contains(body, `"`+plain+`"`) != want {
			t.Errorf("topics with mode %q: %d %s; want %s listed: %v", mode, code, body, plain, want)
		}
	}

	// Without checkAllowAutoCreation the metadata of an unknown topic is 0
	// and creates nothing; with it, the topic is created with 3 partitions,
	// and served so over the binary protocol.
	auto := newTopic(t)
	url := e.web + "/admin/v2/" + restPath(auto) + "/partitions"
	if code, body, _ := httpGet(t, url); code != 200 || !strings.Contains(body, `"partitions":0`) {
		t.Fatalf("metadata of an unknown topic: %d %s", code, body)
	}
	if code, body, _ := httpGet(t, url+"?checkAllowAutoCreation=true"); code != 200 || !strings.Contains(body, `"partitions":3`) {
		t.Fatalf("metadata with checkAllowAutoCreation: %d %s", code, body)
	}
	parts, err := officialClient(t, e.url).TopicPartitions(auto)
	if err != nil || len(parts) != 3 {
		t.Errorf("partitions over the binary protocol after auto creation = %v, %v", parts, err)
	}

	off := newAdminEnv(t, brokerstub.Options{DisableAutoTopicCreation: true})
	if code, _, _ := httpGet(t, off.web+"/admin/v2/"+restPath(newTopic(t))+"/partitions?checkAllowAutoCreation=true"); code != 404 {
		t.Errorf("checkAllowAutoCreation with auto creation off: %d, want 404", code)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
