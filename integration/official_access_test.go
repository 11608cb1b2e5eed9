package integration

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestOfficialExclusiveProducer is the official client's
// TestExclusiveProducer: a second Exclusive producer is fenced, a Shared
// one is busy. The exclusive producer survives a topic unload: it comes
// back with its topic epoch and is admitted again.
func TestOfficialExclusiveProducer(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	producer, err := client.CreateProducer(official.ProducerOptions{Topic: topic, ProducerAccessMode: official.ProducerAccessModeExclusive})
	require.NoError(t, err)
	defer producer.Close()

	_, err = client.CreateProducer(official.ProducerOptions{Topic: topic, ProducerAccessMode: official.ProducerAccessModeExclusive})
	require.Error(t, err, "Producer should be fenced")
	assert.True(t, strings.Contains(err.Error(), "ProducerFenced"), err.Error())

	_, err = client.CreateProducer(official.ProducerOptions{Topic: topic})
	require.Error(t, err, "Producer should be failed")
	assert.True(t, strings.Contains(err.Error(), "ProducerBusy"), err.Error())

	require.NoError(t, b.Unload(topic))
	_, err = producer.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("after unload")})
	require.NoError(t, err, "the exclusive producer reconnects with its epoch")
	_, err = client.CreateProducer(official.ProducerOptions{Topic: topic})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ProducerBusy")
}

// TestOfficialWaitForExclusiveProducer is the official client's
// TestWaitForExclusiveProducer without its sleep: the waiting producer's
// creation blocks while the first one is attached (the stub answered it
// producer_ready=false, seen through the interceptor), and completes — and
// it can send — once the first one closes.
func TestOfficialWaitForExclusiveProducer(t *testing.T) {
	b := startStub(t)
	var successes atomic.Int64
	queued := make(chan struct{})
	b.Intercept(func(e brokerstub.Event) brokerstub.Action {
		if e.Dir == brokerstub.Outbound && e.Type == brokerstub.CmdProducerSuccess && successes.Add(1) == 2 {
			close(queued) // the second answer: the waiting producer's ready=false
		}
		return brokerstub.Action{}
	})
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	producer1, err := client.CreateProducer(official.ProducerOptions{Topic: topic, ProducerAccessMode: official.ProducerAccessModeExclusive})
	require.NoError(t, err)

	created := make(chan error, 1)
	go func() {
		producer2, err := client.CreateProducer(official.ProducerOptions{Topic: topic, ProducerAccessMode: official.ProducerAccessModeWaitForExclusive})
		if err == nil {
			defer producer2.Close()
			_, err = producer2.Send(ctxT(t), &official.ProducerMessage{Payload: make([]byte, 1024)})
		}
		created <- err
	}()
	select {
	case <-queued:
	case <-ctxT(t).Done():
		t.Fatal("the waiting producer was not queued")
	}
	select {
	case err := <-created:
		t.Fatalf("the waiting producer was created while the exclusive one is attached: %v", err)
	default:
	}
	producer1.Close()
	require.NoError(t, <-created)
}

// TestOfficialDeadLetterTopicWithInitialSubscription is the official
// client's TestDeadLetterTopicWithInitialSubscription: the dead-letter
// producer creates the DLQ's subscription before it writes, so a consumer
// that subscribes to it afterwards (at the latest position, the default)
// still gets every dead-lettered message.
func TestOfficialDeadLetterTopicWithInitialSubscription(t *testing.T) {
	b := startStub(t)
	client := officialClient(t, b.URL())
	topic := newTopic(t)
	dlqSub, sub := "init-sub", "my-sub"
	dlqTopic := fmt.Sprintf("%s-%s-DLQ", topic, sub)
	const n = 20
	consumer, err := client.Subscribe(official.ConsumerOptions{
		Topic: topic, SubscriptionName: sub, Type: official.Shared,
		NackRedeliveryDelay: 10 * time.Millisecond,
		DLQ:                 &official.DLQPolicy{MaxDeliveries: 1, DeadLetterTopic: dlqTopic, InitialSubscriptionName: dlqSub},
		Name:                "my-consumer", ReceiverQueueSize: n,
	})
	require.NoError(t, err)
	defer consumer.Close()
	producer, err := client.CreateProducer(official.ProducerOptions{Topic: topic})
	require.NoError(t, err)
	defer producer.Close()
	for i := range n {
		_, err := producer.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "hello-%d", i)})
		require.NoError(t, err)
	}
	for _, m := range receiveN(t, consumer, n) {
		consumer.Nack(m)
	}
	// Every message is dead-lettered into the DLQ's initial subscription.
	require.Eventually(t, func() bool {
		_, _, err := b.Cursor(dlqTopic, dlqSub)
		return err == nil
	}, 10*time.Second, time.Millisecond)

	dlqConsumer, err := client.Subscribe(official.ConsumerOptions{Topic: dlqTopic, SubscriptionName: dlqSub})
	require.NoError(t, err)
	defer dlqConsumer.Close()
	got := map[string]bool{}
	for _, m := range receiveN(t, dlqConsumer, n) {
		got[string(m.Payload())] = true
		require.NoError(t, dlqConsumer.Ack(m))
	}
	assert.Len(t, got, n)
}
