package integration

import (
	"bytes"
	"encoding/json"
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
	"github.com/pulsargo/sdk/pulsar"
)

// newNPTopic is newTopic in the non-persistent domain.
func newNPTopic(t *testing.T) string {
	return "non-persistent://" + strings.TrimPrefix(newTopic(t), "persistent://")
}

// webJSON GETs an admin path and decodes its JSON answer.
func webJSON(t *testing.T, b *brokerstub.Broker, path string) map[string]any {
	t.Helper()
	resp, err := http.Get(b.WebServiceURL() + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var out map[string]any
	require.NoError(t, json.Unmarshal(body, &out))
	return out
}

// waitPermits waits until every consumer of the subscription has told the
// broker it can take messages (its FLOW arrived): on a non-persistent topic
// a message sent before that is dropped.
func waitPermits(t *testing.T, b *brokerstub.Broker, topic, sub string) {
	t.Helper()
	path := "/admin/v2/non-persistent/" + strings.TrimPrefix(topic, "non-persistent://") + "/stats"
	eventually(t, "consumers of "+sub+" have permits", func() error {
		subs, _ := webJSON(t, b, path)["subscriptions"].(map[string]any)
		s, _ := subs[sub].(map[string]any)
		cons, _ := s["consumers"].([]any)
		if len(cons) == 0 {
			return fmt.Errorf("no consumers yet")
		}
		for _, c := range cons {
			if p, _ := c.(map[string]any)["availablePermits"].(float64); p <= 0 {
				return fmt.Errorf("a consumer has %v permits", p)
			}
		}
		return nil
	})
}

// TestOfficialNonPersistentTopic is the official client's own
// TestNonPersistentTopic (producer_test.go: a producer and a consumer on
// non-persistent://public/default/testNonPersistentTopic) with the checks
// it leaves out: what is sent before the subscription is gone, what is sent
// after arrives in order with the ids Pulsar gives (0:0), acks and a seek
// succeed and change nothing, the last message id is refused, and nothing
// is left after a restart.
func TestOfficialNonPersistentTopic(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	b := startStub(t)
	// The client retries GET_LAST_MESSAGE_ID until its operation timeout.
	client, err := official.NewClient(official.ClientOptions{URL: b.URL(), OperationTimeout: 2 * time.Second, Logger: quietLogger()})
	require.NoError(t, err)
	defer client.Close()
	topic := "non-persistent://public/default/testNonPersistentTopic"

	producer, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer producer.Close()
	id, err := producer.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("before")})
	require.NoError(t, err)
	assert.Equal(t, [2]int64{0, 0}, [2]int64{id.LedgerID(), id.EntryID()})

	consumer, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "my-sub"})
	require.NoError(t, err)
	defer consumer.Close()
	waitPermits(t, b, topic, "my-sub")
	for i := range 10 {
		id, err := producer.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i)})
		require.NoError(t, err)
		assert.Equal(t, [2]int64{0, 0}, [2]int64{id.LedgerID(), id.EntryID()})
	}
	for i, m := range receiveN(t, consumer, 10) {
		assert.Equal(t, fmt.Sprintf("m-%d", i), string(m.Payload()), "the message sent before subscribing is gone")
		assert.Equal(t, [2]int64{0, 0}, [2]int64{m.ID().LedgerID(), m.ID().EntryID()})
		require.NoError(t, consumer.Ack(m))
	}
	// A seek succeeds and moves nothing: the broker keeps the consumer
	// attached (on a persistent topic it closes it, and the official
	// client counts on that to clear its queue and resubscribe).
	require.NoError(t, consumer.SeekByTime(time.Unix(0, 0)))
	path := "/admin/v2/non-persistent/public/default/testNonPersistentTopic/stats"
	subs := webJSON(t, b, path)["subscriptions"].(map[string]any)
	assert.Len(t, subs["my-sub"].(map[string]any)["consumers"], 1)
	parts, err := client.TopicPartitions(topic)
	require.NoError(t, err)
	assert.Equal(t, []string{topic}, parts)
	_, err = consumer.GetLastMessageIDs()
	assert.Error(t, err, "Pulsar refuses GET_LAST_MESSAGE_ID on a non-persistent topic")

	st := webJSON(t, b, path)
	assert.EqualValues(t, 11, st["msgInCounter"])
	assert.EqualValues(t, 10, st["msgOutCounter"])

	// Closed first, so that they do not reconnect and make the topic anew.
	consumer.Close()
	producer.Close()
	require.NoError(t, b.Restart())
	resp, err := http.Get(b.WebServiceURL() + path)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "nothing of the topic survives a restart")
}

// TestOfficialNonPersistentDropsCounted lets an official consumer that
// never receives fill its queue: the broker drops what it has no permits
// for, and the subscription's msgDropRate, on the stub's fake clock, says
// how many per second over the stats window.
func TestOfficialNonPersistentDropsCounted(t *testing.T) {
	clk := brokerstub.NewFakeClock(time.Now())
	b := startStub(t, brokerstub.Options{Clock: clk})
	client := officialClient(t, b.URL())
	topic := newNPTopic(t)
	consumer, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		Type: official.Shared, ReceiverQueueSize: 10})
	require.NoError(t, err)
	defer consumer.Close()
	waitPermits(t, b, topic, "s")
	producer, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer producer.Close()

	const n = 500
	for i := range n {
		_, err := producer.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i)})
		require.NoError(t, err)
	}
	path := "/admin/v2/non-persistent/" + strings.TrimPrefix(topic, "non-persistent://") + "/stats"
	st := webJSON(t, b, path)
	out := int64(st["msgOutCounter"].(float64))
	assert.EqualValues(t, n, st["msgInCounter"])
	assert.Less(t, out, int64(n), "a consumer that never receives cannot take them all")
	clk.Advance(time.Minute)
	sub := webJSON(t, b, path)["subscriptions"].(map[string]any)["s"].(map[string]any)
	assert.InDelta(t, float64(n-out)/60, sub["msgDropRate"], 1e-9, "every message not delivered was dropped")
}

// TestNonPersistentCrossClient sends plain, batched and chunked messages on
// non-persistent topics from the official client to pulsargo's and back.
func TestNonPersistentCrossClient(t *testing.T) {
	b := startStub(t, brokerstub.Options{MaxMessageSize: 64 << 10})
	theirs := officialClient(t, b.URL())
	ours, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL()})
	require.NoError(t, err)
	t.Cleanup(ours.Close)
	cases := []struct {
		name             string
		batched, chunked bool
		size             int
	}{{"plain", false, false, 100}, {"batched", true, false, 100}, {"chunked", false, true, 200 << 10}}
	for _, mc := range cases {
		t.Run("official-to-ours/"+mc.name, func(t *testing.T) {
			topic := newNPTopic(t)
			cons, err := ours.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "x"})
			require.NoError(t, err)
			defer cons.Close()
			waitPermits(t, b, topic, "x")
			prod, err := theirs.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: !mc.batched,
				EnableChunking: mc.chunked, BatchingMaxPublishDelay: 5 * time.Millisecond})
			require.NoError(t, err)
			defer prod.Close()
			errs := make(chan error, matrixMessages)
			for i := range matrixMessages {
				prod.SendAsync(ctxT(t), &official.ProducerMessage{Payload: matrixPayload(i, mc.size), Key: fmt.Sprint("k", i%3)},
					func(_ official.MessageID, _ *official.ProducerMessage, err error) { errs <- err })
			}
			for range matrixMessages {
				require.NoError(t, <-errs)
			}
			for i := range matrixMessages {
				m, err := cons.Receive(ctxT(t))
				require.NoError(t, err, "message %d", i)
				assert.True(t, bytes.Equal(matrixPayload(i, mc.size), m.Payload()), "message %d payload", i)
				assert.Equal(t, fmt.Sprint("k", i%3), m.Key())
				require.NoError(t, cons.Ack(m))
			}
		})
		t.Run("ours-to-official/"+mc.name, func(t *testing.T) {
			topic := newNPTopic(t)
			cons, err := theirs.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "x"})
			require.NoError(t, err)
			defer cons.Close()
			waitPermits(t, b, topic, "x")
			prod, err := ours.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: !mc.batched,
				EnableChunking: mc.chunked, BatchingMaxPublishDelay: 5 * time.Millisecond})
			require.NoError(t, err)
			defer prod.Close()
			errs := make(chan error, matrixMessages)
			for i := range matrixMessages {
				prod.SendAsync(ctxT(t), &pulsar.ProducerMessage{Payload: matrixPayload(i, mc.size), Key: fmt.Sprint("k", i%3)},
					func(_ pulsar.MessageID, _ *pulsar.ProducerMessage, err error) { errs <- err })
			}
			for range matrixMessages {
				require.NoError(t, <-errs)
			}
			for i, m := range receiveN(t, cons, matrixMessages) {
				assert.True(t, bytes.Equal(matrixPayload(i, mc.size), m.Payload()), "message %d payload", i)
				assert.Equal(t, fmt.Sprint("k", i%3), m.Key())
				require.NoError(t, cons.Ack(m))
			}
		})
	}
}

// TestAdminNonPersistent creates, lists, reads the stats of and deletes
// non-persistent topics with the official admin client, as against Pulsar.
func TestAdminNonPersistent(t *testing.T) {
	e := newAdminEnv(t)
	single := topicName(t, newNPTopic(t))
	parted := topicName(t, newNPTopic(t))
	require.NoError(t, e.admin.Topics().Create(single, 0))
	wantStatus(t, e.admin.Topics().Create(single, 0), http.StatusConflict, "create again")
	require.NoError(t, e.admin.Topics().Create(parted, 2))

	nsName, err := utils.GetNamespaceName(single.GetTenant() + "/" + single.GetNamespace())
	require.NoError(t, err)
	partitioned, plain, err := e.admin.Topics().List(*nsName)
	require.NoError(t, err)
	assert.Contains(t, partitioned, parted.String())
	assert.Contains(t, plain, single.String())

	st, err := e.admin.Topics().GetStats(single)
	require.NoError(t, err)
	assert.Empty(t, st.Subscriptions)
	_, err = e.admin.Topics().GetPartitionedStats(parted, true)
	require.NoError(t, err)

	require.NoError(t, e.admin.Topics().Delete(single, false, true))
	require.NoError(t, e.admin.Topics().Delete(parted, false, false))
	partitioned, plain, err = e.admin.Topics().List(*nsName)
	require.NoError(t, err)
	assert.NotContains(t, partitioned, parted.String())
	assert.NotContains(t, plain, single.String())
}

// TestOfficialNonPersistentPartitioned: the official client on a
// partitioned non-persistent topic: every partition delivers, each message
// id is 0:0 with its partition's index, and the partitions a client used
// are the topics the namespace lists.
func TestOfficialNonPersistentPartitioned(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	topic := newNPTopic(t)
	require.NoError(t, b.CreatePartitionedTopic(topic, 3))
	consumer, err := client.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared})
	require.NoError(t, err)
	defer consumer.Close()
	for i := range 3 {
		waitPermits(t, b, fmt.Sprintf("%s-partition-%d", topic, i), "s")
	}
	producer, err := client.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true,
		MessageRouter: func(m *official.ProducerMessage, _ official.TopicMetadata) int { return int(m.Payload[0]-'a') % 3 }})
	require.NoError(t, err)
	defer producer.Close()
	for i := range 9 {
		_, err := producer.Send(ctxT(t), &official.ProducerMessage{Payload: []byte{byte('a' + i%3), byte('0' + i)}})
		require.NoError(t, err)
	}
	perPartition := map[int32]int{}
	for _, m := range receiveN(t, consumer, 9) {
		id := m.ID()
		assert.Equal(t, [2]int64{0, 0}, [2]int64{id.LedgerID(), id.EntryID()})
		assert.Equal(t, int32(m.Payload()[0]-'a'), id.PartitionIdx())
		perPartition[id.PartitionIdx()]++
		require.NoError(t, consumer.Ack(m))
	}
	assert.Equal(t, map[int32]int{0: 3, 1: 3, 2: 3}, perPartition)
	resp, err := http.Get(b.WebServiceURL() + "/admin/v2/non-persistent/" + strings.TrimPrefix(topic, "non-persistent://") + "/partitioned-stats")
	require.NoError(t, err)
	var st map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	assert.EqualValues(t, 9, st["msgInCounter"])
	assert.EqualValues(t, 9, st["msgOutCounter"])
	assert.Len(t, st["partitions"], 3)
}
