package brokerstub

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
	gproto "google.golang.org/protobuf/proto"
)

// attach attaches producer id to topic and returns the broker's error, or
// nil for PRODUCER_SUCCESS.
func (c *rawClient) attach(topic string, id uint64) *proto.CommandError {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: &id, RequestId: gproto.Uint64(500 + id)}})
	return errorOf(c.answer())
}

// sub subscribes consumer id to topic's subscription sub of type typ
// (durable, or a reader's when durable is false) and returns the broker's
// error, or nil for SUCCESS.
func (c *rawClient) sub(topic, sub string, typ proto.CommandSubscribe_SubType, id uint64, durable bool) *proto.CommandError {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: typ.Enum(), ConsumerId: &id, RequestId: gproto.Uint64(700 + id),
		Durable: &durable, ForceTopicCreation: gproto.Bool(true), InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	return errorOf(c.answer())
}

func errorOf(cmd *proto.BaseCommand) *proto.CommandError {
	if cmd.GetType() == proto.BaseCommand_ERROR {
		return cmd.GetError()
	}
	return nil
}

// refused checks a broker error's code and text.
func refused(t *testing.T, e *proto.CommandError, code proto.ServerError, text string) {
	t.Helper()
	require.NotNil(t, e, "accepted; want %s %q", code, text)
	assert.Equal(t, code, e.GetError(), e.GetMessage())
	assert.Equal(t, text, e.GetMessage())
}

func postPolicy(t *testing.T, b *Broker, path, body string) {
	t.Helper()
	code, resp := adminDo(t, b, http.MethodPost, path, body)
	require.Equal(t, http.StatusNoContent, code, "POST %s: %s", path, resp)
}

// maxProducersPerTopic: the broker's limit, the namespace policy over it,
// the topic policy over both (0: no limit), as Pulsar resolves them; the
// refusal is ProducerBusy with Pulsar's text.
func TestMaxProducersPerTopic(t *testing.T) {
	b := RunT(t, Options{Limits: Limits{MaxProducersPerTopic: 1}})
	c := dialRaw(t, b)
	c.connect()
	const topic = "persistent://public/default/max-producers"
	require.Nil(t, c.attach(topic, 1))
	refused(t, c.attach(topic, 2), proto.ServerError_ProducerBusy,
		"Topic 'persistent://public/default/max-producers' reached max producers limit")

	code, body := adminDo(t, b, http.MethodPost, "/admin/v2/namespaces/public/default/maxProducersPerTopic", "-1")
	assert.Equal(t, http.StatusPreconditionFailed, code)
	assert.JSONEq(t, `{"reason":"maxProducersPerTopic must be 0 or more"}`, body)
	code, _ = adminDo(t, b, http.MethodPost, "/admin/v2/namespaces/public/default/maxProducersPerTopic", `"many"`)
	assert.Equal(t, http.StatusBadRequest, code)
	postPolicy(t, b, "/admin/v2/namespaces/public/default/maxProducersPerTopic", "2")
	require.Nil(t, c.attach(topic, 2), "namespace policy 2 over the broker's 1")
	refused(t, c.attach(topic, 3), proto.ServerError_ProducerBusy,
		"Topic 'persistent://public/default/max-producers' reached max producers limit")

	postPolicy(t, b, "/admin/v2/persistent/public/default/max-producers/maxProducers", "0")
	require.Nil(t, c.attach(topic, 3), "topic policy 0: no limit")
	code, _ = adminDo(t, b, http.MethodDelete, "/admin/v2/persistent/public/default/max-producers/maxProducers", "")
	require.Equal(t, http.StatusNoContent, code)
	refused(t, c.attach(topic, 4), proto.ServerError_ProducerBusy,
		"Topic 'persistent://public/default/max-producers' reached max producers limit")

	// Producers that leave make room: 3 attached, 2 allowed.
	for _, id := range []uint64{1, 2} {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{
			ProducerId: gproto.Uint64(id), RequestId: gproto.Uint64(90 + id)}})
		c.expect(proto.BaseCommand_SUCCESS)
	}
	require.Nil(t, c.attach(topic, 4))
}

// maxConsumersPerTopic counts the consumers of all subscriptions;
// maxConsumersPerSubscription those of one; both refuse with ConsumerBusy.
func TestMaxConsumersPerTopicAndSubscription(t *testing.T) {
	t.Run("topic", func(t *testing.T) {
		b := RunT(t, Options{Limits: Limits{MaxConsumersPerTopic: 2}})
		c := dialRaw(t, b)
		c.connect()
		const topic = "persistent://public/default/max-consumers"
		require.Nil(t, c.sub(topic, "a", proto.CommandSubscribe_Shared, 1, true))
		require.Nil(t, c.sub(topic, "b", proto.CommandSubscribe_Shared, 2, true))
		refused(t, c.sub(topic, "c", proto.CommandSubscribe_Shared, 3, true), proto.ServerError_ConsumerBusy, "Topic reached max consumers limit")
		refused(t, c.sub(topic, "a", proto.CommandSubscribe_Shared, 4, true), proto.ServerError_ConsumerBusy, "Topic reached max consumers limit")
		postPolicy(t, b, "/admin/v2/namespaces/public/default/maxConsumersPerTopic", "3")
		require.Nil(t, c.sub(topic, "a", proto.CommandSubscribe_Shared, 4, true))
		postPolicy(t, b, "/admin/v2/persistent/public/default/max-consumers/maxConsumers", "1")
		refused(t, c.sub(topic, "r", proto.CommandSubscribe_Exclusive, 5, false), proto.ServerError_ConsumerBusy, "Topic reached max consumers limit")
	})
	t.Run("subscription", func(t *testing.T) {
		b := RunT(t, Options{Limits: Limits{MaxConsumersPerSubscription: 2}})
		c := dialRaw(t, b)
		c.connect()
		for _, typ := range []proto.CommandSubscribe_SubType{proto.CommandSubscribe_Shared, proto.CommandSubscribe_Failover, proto.CommandSubscribe_Key_Shared} {
			topic := "persistent://public/default/max-sub-consumers-" + typ.String()
			id := uint64(10 * (typ + 1))
			require.Nil(t, c.sub(topic, "s", typ, id, true))
			require.Nil(t, c.sub(topic, "s", typ, id+1, true))
			refused(t, c.sub(topic, "s", typ, id+2, true), proto.ServerError_ConsumerBusy, "Subscription reached max consumers limit")
			require.Nil(t, c.sub(topic, "other", typ, id+3, true), "another subscription has room")
		}
		postPolicy(t, b, "/admin/v2/namespaces/public/default/maxConsumersPerSubscription", "3")
		require.Nil(t, c.sub("persistent://public/default/max-sub-consumers-Shared", "s", proto.CommandSubscribe_Shared, 99, true))
	})
}

// maxSubscriptionsPerTopic refuses a new subscription, a reader's too, with
// NotAllowedError; existing subscriptions still take consumers.
func TestMaxSubscriptionsPerTopic(t *testing.T) {
	b := RunT(t, Options{Limits: Limits{MaxSubscriptionsPerTopic: 1}})
	c := dialRaw(t, b)
	c.connect()
	const topic = "persistent://public/default/max-subs"
	const text = "Exceed the maximum number of subscriptions of the topic: persistent://public/default/max-subs"
	require.Nil(t, c.sub(topic, "a", proto.CommandSubscribe_Shared, 1, true))
	refused(t, c.sub(topic, "b", proto.CommandSubscribe_Shared, 2, true), proto.ServerError_NotAllowedError, text)
	refused(t, c.sub(topic, "reader", proto.CommandSubscribe_Exclusive, 3, false), proto.ServerError_NotAllowedError, text)
	require.Nil(t, c.sub(topic, "a", proto.CommandSubscribe_Shared, 4, true), "an existing subscription")
	postPolicy(t, b, "/admin/v2/namespaces/public/default/maxSubscriptionsPerTopic", "2")
	require.Nil(t, c.sub(topic, "b", proto.CommandSubscribe_Shared, 5, true))
	refused(t, c.sub(topic, "c", proto.CommandSubscribe_Shared, 6, true), proto.ServerError_NotAllowedError, text)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/namespaces/public/default/maxSubscriptionsPerTopic", "")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "2", strings.TrimSpace(body))
}

// allowAutoSubscriptionCreation=false refuses a durable subscription that
// does not exist with SubscriptionNotFound; readers, existing subscriptions
// and the namespace policy allowing it are served.
func TestAutoSubscriptionCreationOff(t *testing.T) {
	b := RunT(t, Options{DisableAutoSubscriptionCreation: true})
	c := dialRaw(t, b)
	c.connect()
	const topic = "persistent://public/default/no-auto-sub"
	refused(t, c.sub(topic, "new", proto.CommandSubscribe_Shared, 1, true), proto.ServerError_SubscriptionNotFound, "Subscription does not exist")
	require.Nil(t, c.sub(topic, "reader", proto.CommandSubscribe_Exclusive, 2, false), "a reader's subscription is not durable")
	code, body := adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/default/no-auto-sub/subscription/made", "")
	require.Equal(t, http.StatusNoContent, code, body)
	require.Nil(t, c.sub(topic, "made", proto.CommandSubscribe_Shared, 3, true), "created with the admin API")
	postPolicy(t, b, "/admin/v2/namespaces/public/default/autoSubscriptionCreation", `{"allowAutoSubscriptionCreation":true}`)
	require.Nil(t, c.sub(topic, "new", proto.CommandSubscribe_Shared, 4, true), "the namespace policy allows it")
	postPolicy(t, b, "/admin/v2/persistent/public/default/no-auto-sub/autoSubscriptionCreation", `{"allowAutoSubscriptionCreation":false}`)
	refused(t, c.sub(topic, "newer", proto.CommandSubscribe_Shared, 5, true), proto.ServerError_SubscriptionNotFound, "Subscription does not exist")
}

// enableNonPersistentTopics=false refuses producers and consumers of
// non-persistent topics with NotAllowedError.
func TestNonPersistentTopicsOff(t *testing.T) {
	b := RunT(t, Options{DisableNonPersistentTopics: true})
	c := dialRaw(t, b)
	c.connect()
	const text = "Broker is not unable to load non-persistent topic"
	refused(t, c.attach("non-persistent://public/default/np", 1), proto.ServerError_NotAllowedError, text)
	refused(t, c.sub("non-persistent://public/default/np", "s", proto.CommandSubscribe_Shared, 2, true), proto.ServerError_NotAllowedError, text)
	require.Nil(t, c.attach("persistent://public/default/p", 3))
}

// maxTopicsPerNamespace refuses the topic past the limit — auto-created by
// a producer or consumer (NotAllowedError), or created with the admin API
// (412; a partitioned topic counts its partitions) — but not the use of a
// topic that exists; maxNumPartitionsPerPartitionedTopic refuses more
// partitions with 406.
func TestMaxTopicsPerNamespaceAndPartitions(t *testing.T) {
	b := RunT(t, Options{Limits: Limits{MaxTopicsPerNamespace: 2, MaxNumPartitionsPerPartitionedTopic: 4}})
	c := dialRaw(t, b)
	c.connect()
	const text = "Exceed maximum number of topics in namespace."
	require.Nil(t, c.attach("persistent://public/default/t1", 1))
	require.Nil(t, c.sub("persistent://public/default/t2", "s", proto.CommandSubscribe_Shared, 2, true))
	refused(t, c.attach("persistent://public/default/t3", 3), proto.ServerError_NotAllowedError, text)
	refused(t, c.sub("persistent://public/default/t3", "s", proto.CommandSubscribe_Shared, 4, true), proto.ServerError_NotAllowedError, text)
	require.Nil(t, c.attach("persistent://public/default/t1", 5), "an existing topic")
	require.Nil(t, c.attach("non-persistent://public/default/np", 6), "non-persistent topics do not count")

	code, body := adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/default/t4", "")
	assert.Equal(t, http.StatusPreconditionFailed, code)
	assert.JSONEq(t, `{"reason":"`+text+`"}`, body)
	code, body = adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/default/parts/partitions", "1")
	assert.Equal(t, http.StatusPreconditionFailed, code, "a partitioned topic too: %s", body)

	require.NoError(t, b.CreateNamespace("public/roomy"))
	postPolicy(t, b, "/admin/v2/namespaces/public/roomy/maxTopicsPerNamespace", "0") // no limit here
	code, body = adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/roomy/parts/partitions", "8")
	assert.Equal(t, http.StatusNotAcceptable, code)
	assert.JSONEq(t, `{"reason":"Number of partitions should be less than or equal to 4"}`, body)
	postPolicy(t, b, "/admin/v2/namespaces/public/roomy/maxTopicsPerNamespace", "3")
	code, body = adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/roomy/parts/partitions", "4")
	assert.Equal(t, http.StatusPreconditionFailed, code, "4 partitions are 4 topics: %s", body)
	code, body = adminDo(t, b, http.MethodPut, "/admin/v2/persistent/public/roomy/parts/partitions", "3")
	assert.Equal(t, http.StatusNoContent, code, body)
	require.Nil(t, c.attach("persistent://public/roomy/parts-partition-2", 7), "a partition of a topic that exists")
	refused(t, c.attach("persistent://public/roomy/more", 8), proto.ServerError_NotAllowedError, text)
}

// flowRaw gives consumer id n permits.
func (c *rawClient) flowRaw(id uint64, n uint32) {
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{ConsumerId: &id, MessagePermits: &n}})
}

// received reads n MESSAGE frames and returns their ids. What the broker
// dispatched beyond them shows in its state (unackedAt), which is read on
// the topic goroutine after the commands that caused the dispatch.
func (c *rawClient) received(n int) []*proto.MessageIdData {
	c.t.Helper()
	var ids []*proto.MessageIdData
	for len(ids) < n {
		f, err := c.next()
		if err != nil {
			c.t.Fatalf("after %d of %d messages: %v", len(ids), n, err)
		}
		if f.Cmd.GetType() == proto.BaseCommand_MESSAGE {
			ids = append(ids, f.Cmd.GetMessage().GetMessageId())
		}
	}
	return ids
}

// ackRaw acknowledges ids individually and waits for the receipt, so that
// the broker has applied the ack when it returns; what the ack lets it
// dispatch comes after the receipt.
func (c *rawClient) ackRaw(id uint64, ids ...*proto.MessageIdData) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
		ConsumerId: &id, AckType: proto.CommandAck_Individual.Enum(), MessageId: ids, RequestId: gproto.Uint64(4242)}})
	c.expect(proto.BaseCommand_ACK_RESPONSE)
}

// publish stores n single messages on topic through a producer of c.
func publish(t *testing.T, c *rawClient, topic string, n int) {
	t.Helper()
	require.Nil(t, c.attach(topic, 900))
	for i := range n {
		seq := uint64(i)
		c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
			ProducerId: gproto.Uint64(900), SequenceId: &seq, NumMessages: gproto.Int32(1)}},
			&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: &seq, PublishTime: gproto.Uint64(1)},
			[]byte(fmt.Sprint(i)))
		c.expect(proto.BaseCommand_SEND_RECEIPT)
	}
}

// unackedAt returns the consumer's and the subscription's counts and
// blocked flags, read on the topic goroutine.
func unackedAt(t *testing.T, b *Broker, topic, sub string) (cons []int64, subUnacked int64, blocked []bool, subBlocked bool) {
	t.Helper()
	name, err := engine.ParseTopic(topic)
	require.NoError(t, err)
	tp, err := b.eng.GetTopic(name, false)
	require.NoError(t, err)
	require.NoError(t, tp.Call(func() {
		s := tp.Subs[sub]
		for _, cs := range s.Consumers {
			cons = append(cons, cs.Unacked)
			blocked = append(blocked, cs.Blocked)
		}
		subUnacked, subBlocked = s.Unacked, s.Blocked
	}))
	return
}

// maxUnackedMessagesPerConsumer: a Shared or Key_Shared consumer with
// plenty of permits gets exactly the limit, nothing more until its acks
// bring it to half, then up to the limit again; Pulsar's default is 50,000.
func TestMaxUnackedMessagesPerConsumer(t *testing.T) {
	assert.Equal(t, 50_000, Options{}.withDefaults().Limits.MaxUnackedMessagesPerConsumer)
	assert.Equal(t, 200_000, Options{}.withDefaults().Limits.MaxUnackedMessagesPerSubscription)
	for _, typ := range []proto.CommandSubscribe_SubType{proto.CommandSubscribe_Shared, proto.CommandSubscribe_Key_Shared} {
		t.Run(typ.String(), func(t *testing.T) { testMaxUnackedPerConsumer(t, typ) })
	}
}

func testMaxUnackedPerConsumer(t *testing.T, typ proto.CommandSubscribe_SubType) {
	b := RunT(t, Options{Limits: Limits{MaxUnackedMessagesPerConsumer: 10}})
	const topic = "persistent://public/default/max-unacked"
	p := dialRaw(t, b)
	p.connect()
	publish(t, p, topic, 50)

	c := dialRaw(t, b)
	c.connect()
	require.Nil(t, c.sub(topic, "s", typ, 1, true))
	c.flowRaw(1, 1000)
	got := c.received(10)
	cons, _, blocked, _ := unackedAt(t, b, topic, "s")
	assert.Equal(t, []int64{10}, cons, "dispatch stops at the limit")
	assert.Equal(t, []bool{true}, blocked)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/max-unacked/stats", "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"blockedConsumerOnUnackedMsgs":true`)

	c.ackRaw(1, got[:4]...) // 6 left: still over half
	cons, _, blocked, _ = unackedAt(t, b, topic, "s")
	assert.Equal(t, []int64{6}, cons)
	assert.Equal(t, []bool{true}, blocked, "6 unacked of 10: still blocked")
	c.ackRaw(1, got[4]) // 5 left: half, unblocked, refilled to 10
	more := c.received(5)
	cons, _, blocked, _ = unackedAt(t, b, topic, "s")
	assert.Equal(t, []int64{10}, cons, "refilled to the limit")
	assert.Equal(t, []bool{true}, blocked)
	assert.NotEqual(t, got[9].GetEntryId(), more[0].GetEntryId())

	// The namespace policy over the broker's limit applies at once.
	postPolicy(t, b, "/admin/v2/namespaces/public/default/maxUnackedMessagesPerConsumer", "0")
	c.received(35)
	cons, _, blocked, _ = unackedAt(t, b, topic, "s")
	assert.Equal(t, []int64{45}, cons, "no limit: the rest of the backlog")
	assert.Equal(t, []bool{false}, blocked)
}

// maxUnackedMessagesPerSubscription stops the whole Shared subscription at
// the limit, whichever consumer holds the messages, and resumes below half.
func TestMaxUnackedMessagesPerSubscription(t *testing.T) {
	b := RunT(t, Options{Limits: Limits{MaxUnackedMessagesPerSubscription: 8}})
	const topic = "persistent://public/default/max-unacked-sub"
	p := dialRaw(t, b)
	p.connect()
	publish(t, p, topic, 30)

	c := dialRaw(t, b)
	c.connect()
	require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 1, true))
	require.Nil(t, c.sub(topic, "s", proto.CommandSubscribe_Shared, 2, true))
	c.flowRaw(1, 1000)
	c.flowRaw(2, 1000)
	got := c.received(8)
	cons, total, _, blocked := unackedAt(t, b, topic, "s")
	assert.Equal(t, int64(8), total, "dispatch stops at the limit")
	assert.Equal(t, int64(8), cons[0]+cons[1])
	assert.True(t, blocked)
	code, body := adminDo(t, b, http.MethodGet, "/admin/v2/persistent/public/default/max-unacked-sub/stats", "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"blockedSubscriptionOnUnackedMsgs":true`)

	// Acks down to 4 (half) keep it blocked; below half it resumes. An ack
	// releases a message whichever consumer holds it.
	c.ackRaw(1, got[:4]...)
	_, total, _, blocked = unackedAt(t, b, topic, "s")
	assert.Equal(t, int64(4), total)
	assert.True(t, blocked, "4 of 8: not below half")
	c.ackRaw(1, got[4])
	c.received(5)
	_, total, _, blocked = unackedAt(t, b, topic, "s")
	assert.Equal(t, int64(8), total, "refilled to the limit")
	assert.True(t, blocked)
}

// ParseConfig reads the limits' keys of Pulsar's broker.conf; Pulsar's 0
// for the unacked limits (no limit) is Limits' negative, and a key left out
// keeps Pulsar's default.
func TestParseConfigLimits(t *testing.T) {
	cfg, err := ParseConfig(strings.NewReader(strings.Join([]string{
		"maxProducersPerTopic=1", "maxConsumersPerTopic=2", "maxConsumersPerSubscription=3",
		"maxSubscriptionsPerTopic=4", "maxTopicsPerNamespace=5", "maxNumPartitionsPerPartitionedTopic=6",
		"maxUnackedMessagesPerConsumer=0", "maxUnackedMessagesPerSubscription=70",
		"allowAutoSubscriptionCreation=false", "enableNonPersistentTopics=false",
	}, "\n")))
	require.NoError(t, err)
	assert.Empty(t, cfg.Ignored)
	assert.Equal(t, Limits{MaxProducersPerTopic: 1, MaxConsumersPerTopic: 2, MaxConsumersPerSubscription: 3,
		MaxSubscriptionsPerTopic: 4, MaxTopicsPerNamespace: 5, MaxNumPartitionsPerPartitionedTopic: 6,
		MaxUnackedMessagesPerConsumer: -1, MaxUnackedMessagesPerSubscription: 70}, cfg.Options.Limits)
	assert.True(t, cfg.Options.DisableAutoSubscriptionCreation)
	assert.True(t, cfg.Options.DisableNonPersistentTopics)

	cfg, err = ParseConfig(strings.NewReader("clusterName=standalone\n"))
	require.NoError(t, err)
	assert.Equal(t, 50_000, cfg.Options.Limits.MaxUnackedMessagesPerConsumer)
	assert.Equal(t, 200_000, cfg.Options.Limits.MaxUnackedMessagesPerSubscription)
	assert.False(t, cfg.Options.DisableAutoSubscriptionCreation || cfg.Options.DisableNonPersistentTopics)

	_, err = ParseConfig(strings.NewReader("maxProducersPerTopic=-1\n"))
	assert.ErrorContains(t, err, "maxProducersPerTopic=-1")
}
