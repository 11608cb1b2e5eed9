package integration

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/pulsar"
)

// officialSend produces payloads to topic with the official client.
func officialSend(t *testing.T, c official.Client, topic string, payloads ...string) {
	t.Helper()
	p, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer p.Close()
	for _, s := range payloads {
		_, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: []byte(s)})
		require.NoError(t, err)
	}
}

func sdkPayloads(ms []pulsar.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Payload())
	}
	slices.Sort(out)
	return out
}

// A pulsargo pattern consumer subscribes to the topics the official admin
// client creates and the official producer writes to, as they appear (on
// the stub's topic-list watch notifications), and drops a topic deleted.
func TestSDKPatternConsumerDiscoversOfficialTopics(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	e := newAdminEnv(t)
	prefix := strings.TrimPrefix(newTopic(t), "persistent://public/default/")
	sdk := sdkClient(t, e.url)
	cons := sdkSubscribe(t, sdk, pulsar.ConsumerOptions{
		TopicsPattern: "persistent://public/default/" + prefix + "-.*", SubscriptionName: "pattern",
		AutoDiscoveryPeriod: time.Hour, // found by the watcher, or not at all
	})
	off := officialClient(t, e.url)

	plain := "persistent://public/default/" + prefix + "-plain"
	require.NoError(t, e.admin.Topics().Create(topicName(t, plain), 0))
	parted := "persistent://public/default/" + prefix + "-parted"
	require.NoError(t, e.admin.Topics().Create(topicName(t, parted), 3))
	other := "persistent://public/default/other-" + prefix
	require.NoError(t, e.admin.Topics().Create(topicName(t, other), 0))

	// The consumer subscribes with SubscriptionPositionEarliest when it hears
	// of a topic: what the producers send before is received too.
	officialSend(t, off, plain, "plain-1", "plain-2")
	officialSend(t, off, parted, "parted-1", "parted-2", "parted-3")
	officialSend(t, off, other, "other-1")
	assert.Equal(t, []string{"parted-1", "parted-2", "parted-3", "plain-1", "plain-2"}, sdkPayloads(sdkReceiveN(t, cons, 5)))

	// A topic deleted is dropped: the consumer's resubscription does not
	// create it again.
	require.NoError(t, e.admin.Topics().Delete(topicName(t, plain), true, true))
	officialSend(t, off, parted, "parted-4")
	assert.Equal(t, []string{"parted-4"}, sdkPayloads(sdkReceiveN(t, cons, 1)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if m, err := cons.Receive(ctx); err == nil {
		t.Fatalf("unexpected message %q from %s", m.Payload(), m.Topic())
	}
	ns, err := utils.GetNamespaceName("public/default")
	require.NoError(t, err)
	topics, _, err := e.admin.Topics().List(*ns)
	require.NoError(t, err)
	assert.NotContains(t, topics, plain)
}

// pulsargo on the web service URL: lookups over HTTP, messages over the
// binary protocol, read by the official client.
func TestSDKProducerOverHTTPServiceURL(t *testing.T) {
	e := newAdminEnv(t)
	topic := newTopic(t)
	require.NoError(t, e.admin.Topics().Create(topicName(t, topic), 2))
	off := officialClient(t, e.url)
	ocons, err := off.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	defer ocons.Close()

	sdk := sdkClient(t, e.web)
	require.True(t, strings.HasPrefix(e.web, "http://"))
	parts, err := sdk.TopicPartitions(topic)
	require.NoError(t, err)
	assert.Len(t, parts, 2)
	p, err := sdk.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	defer p.Close()
	for i := range 4 {
		_, err := p.Send(ctxT(t), &pulsar.ProducerMessage{Payload: []byte("http-" + strconv.Itoa(i))})
		require.NoError(t, err)
	}
	var got []string
	for _, m := range receiveN(t, ocons, 4) {
		got = append(got, string(m.Payload()))
	}
	slices.Sort(got)
	assert.Equal(t, []string{"http-0", "http-1", "http-2", "http-3"}, got)
}

// A partitioned topic grown with pulsaradmin is followed by pulsargo's
// producer (PartitionsAutoDiscoveryInterval) and consumer
// (AutoDiscoveryPeriod).
func TestSDKFollowsPartitionsGrownWithPulsarAdmin(t *testing.T) {
	e := newAdminEnv(t)
	topic := newTopic(t)
	tn := topicName(t, topic)
	require.NoError(t, e.admin.Topics().Create(tn, 2))
	sdk := sdkClient(t, e.url)
	cons := sdkSubscribe(t, sdk, pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "grow",
		AutoDiscoveryPeriod: 100 * time.Millisecond})
	var seen atomic.Uint32
	p, err := sdk.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: true,
		PartitionsAutoDiscoveryInterval: 100 * time.Millisecond,
		MessageRouter: func(m *pulsar.ProducerMessage, md pulsar.TopicMetadata) int {
			seen.Store(md.NumPartitions())
			i, _ := strconv.Atoi(m.Key)
			return i % int(md.NumPartitions())
		}})
	require.NoError(t, err)
	defer p.Close()
	send := func(key int) {
		t.Helper()
		_, err := p.Send(ctxT(t), &pulsar.ProducerMessage{Key: strconv.Itoa(key), Payload: []byte(strconv.Itoa(key))})
		require.NoError(t, err)
	}
	send(0)
	assert.Equal(t, uint32(2), seen.Load())
	assert.Equal(t, []string{"0"}, sdkPayloads(sdkReceiveN(t, cons, 1)))

	require.NoError(t, e.admin.Topics().Update(tn, 5))
	eventually(t, "the producer routes over 5 partitions", func() error {
		send(4)
		if n := seen.Load(); n != 5 {
			return fmt.Errorf("router saw %d partitions", n)
		}
		return nil
	})
	// Every message sent is received, the last one from partition 4, which
	// the consumer subscribed to when it found it (from the earliest
	// position).
	var last pulsar.Message
	for {
		m, err := cons.Receive(ctxT(t))
		require.NoError(t, err)
		require.NoError(t, cons.Ack(m))
		if m.Topic() == topic+"-partition-4" {
			last = m
			break
		}
	}
	assert.Equal(t, "4", string(last.Payload()))
}
