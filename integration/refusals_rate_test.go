package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A namespace dispatch rate set through the admin API holds what the
// official client receives to that rate (issue 32): 10 messages a second,
// a backlog of 40 takes three seconds or more, not one burst. Runs against
// a real Pulsar too (PULSARGO_TEST_URL, PULSARGO_TEST_ADMIN_URL), where the
// broker's dispatcher may be slower than the rate, never faster.
func TestRateNamespaceDispatchRate(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	e := newAdminEnv(t)
	ns := newPolicyNamespace(t, e, "dispatchrate")
	rate := utils.DispatchRate{DispatchThrottlingRateInMsg: 10, DispatchThrottlingRateInByte: -1, RatePeriodInSecond: 1}
	require.NoError(t, e.admin.Namespaces().SetDispatchRate(*mustNamespace(t, ns), rate))
	eventually(t, "dispatch rate read back", func() error {
		got, err := e.admin.Namespaces().GetDispatchRate(*mustNamespace(t, ns))
		if err != nil || got.DispatchThrottlingRateInMsg != 10 {
			return errorf("GET dispatchRate: %+v %v", got, err)
		}
		return nil
	})
	topic := "persistent://" + ns + "/t"
	oc := officialClient(t, e.url)
	c, err := oc.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: official.Shared,
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest})
	require.NoError(t, err)
	defer c.Close()
	p, err := oc.CreateProducer(producerOpts(topic))
	require.NoError(t, err)
	defer p.Close()
	const n = 40
	start := time.Now() // dispatch starts with the first message
	for i := range n {
		_, err := p.Send(context.Background(), &official.ProducerMessage{Payload: []byte(fmt.Sprint(i))})
		require.NoError(t, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inFirstSecond := 0
	for i := range n {
		m, err := c.Receive(ctx)
		require.NoError(t, err, "after %d of %d messages", i, n)
		require.NoError(t, c.Ack(m))
		if time.Since(start) < time.Second {
			inFirstSecond++
		}
	}
	took := time.Since(start)
	t.Logf("%d messages in %v, %d in the first second", n, took, inFirstSecond)
	assert.LessOrEqual(t, inFirstSecond, 20, "a burst beyond the rate")
	assert.GreaterOrEqual(t, took, 2500*time.Millisecond, "40 messages at 10 a second, 10 of them at once")
}

// A namespace publish rate set through the admin API slows the official
// producer to it, refusing nothing (Pulsar pauses reading the connection):
// 20 messages at 5 a second, 5 of them at once, take three seconds or
// more. Runs against a real Pulsar too.
func TestRateNamespacePublishRate(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	e := newAdminEnv(t)
	ns := newPolicyNamespace(t, e, "publishrate")
	require.NoError(t, e.admin.Namespaces().SetPublishRate(*mustNamespace(t, ns),
		utils.PublishRate{PublishThrottlingRateInMsg: 5, PublishThrottlingRateInByte: -1}))
	eventually(t, "publish rate read back", func() error {
		got, err := e.admin.Namespaces().GetPublishRate(*mustNamespace(t, ns))
		if err != nil || got.PublishThrottlingRateInMsg != 5 {
			return errorf("GET publishRate: %+v %v", got, err)
		}
		return nil
	})
	oc := officialClient(t, e.url)
	p, err := oc.CreateProducer(producerOpts("persistent://" + ns + "/t"))
	require.NoError(t, err)
	defer p.Close()
	const n = 20
	start := time.Now()
	for i := range n {
		_, err := p.Send(context.Background(), &official.ProducerMessage{Payload: []byte(fmt.Sprint(i))})
		require.NoError(t, err, "message %d: a publish rate refuses nothing", i)
	}
	took := time.Since(start)
	t.Logf("%d messages sent in %v", n, took)
	assert.GreaterOrEqual(t, took, 2500*time.Millisecond, "20 messages at 5 a second, 5 of them at once")
}
