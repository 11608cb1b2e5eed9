package pulsar

import (
	"context"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
)

// TestMetricsConnectionErrors counts a connection refused at the CONNECT
// handshake and one that cannot be established, apart.
func TestMetricsConnectionErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, Logger: csLogger(),
			Authenticate: func(string, []byte) error { return errors.New("no") }})
		rec := newRecorder()
		c := testClient(t, b, ClientOptions{MetricsRegisterer: rec, OperationTimeout: time.Second,
			Authentication: NewAuthenticationToken("t")})
		if _, err := c.CreateProducer(ProducerOptions{Topic: "refused"}); err == nil {
			t.Fatal("producer created on a broker that refuses the client")
		}
		if got := rec.sum("", MetricConnectionsHandshakeErrors); got < 1 {
			t.Errorf("handshake errors %v, want at least 1", got)
		}
		if got := rec.sum("", MetricConnectionsOpened); got != 0 {
			t.Errorf("connections opened %v, want 0", got)
		}

		rec2 := newRecorder()
		dead, err := newClient(ClientOptions{URL: "pulsar://nowhere:6650", OperationTimeout: time.Second, MetricsRegisterer: rec2,
			Dialer: func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("unreachable") }})
		if err != nil {
			t.Fatal(err)
		}
		defer dead.Close()
		if _, err := dead.CreateProducer(ProducerOptions{Topic: "x"}); err == nil {
			t.Fatal("producer created with no broker")
		}
		if got := rec2.sum("", MetricConnectionsEstablishmentErrors); got < 1 {
			t.Errorf("establishment errors %v, want at least 1", got)
		}
		if got := rec2.sum("", MetricConnectionsHandshakeErrors); got != 0 {
			t.Errorf("handshake errors %v without a connection, want 0", got)
		}
	})
}

// TestMetricsDLQ counts a message moved to the dead-letter topic, and the
// nacks before it.
func TestMetricsDLQ(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, Logger: csLogger()})
		rec := newRecorder()
		c := testClient(t, b, ClientOptions{MetricsRegisterer: rec, MetricsCardinality: MetricsCardinalityNone})
		topic := csTopic()
		cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: Shared,
			NackRedeliveryDelay: 10 * time.Millisecond, DLQ: &DLQPolicy{MaxDeliveries: 2, DeadLetterTopic: topic + "-DLQ"}})
		if err != nil {
			t.Fatal(err)
		}
		defer cons.Close()
		dlq, err := c.Subscribe(ConsumerOptions{Topic: topic + "-DLQ", SubscriptionName: "d"})
		if err != nil {
			t.Fatal(err)
		}
		defer dlq.Close()
		p := testProducer(t, c, ProducerOptions{Topic: topic})
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("poison")}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			cons.Nack(csRecv(t, cons))
		}
		if m := csRecv(t, dlq); string(m.Payload()) != "poison" {
			t.Fatalf("dead letter %q", m.Payload())
		}
		if got := rec.sum("", MetricDLQ); got != 1 {
			t.Errorf("dead letters %v, want 1", got)
		}
		if got := rec.sum("", MetricNacks); got != 2 {
			t.Errorf("nacks %v, want 2", got)
		}
	})
}

// TestMetricsPartitions counts the active partitions of a partitioned
// topic's producer and consumer, and their reconnect failures after an
// unload while the broker refuses them again.
func TestMetricsPartitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, Logger: csLogger()})
		topic := csTopic()
		if err := b.CreatePartitionedTopic(topic, 3); err != nil {
			t.Fatal(err)
		}
		rec := newRecorder()
		c := testClient(t, b, ClientOptions{MetricsRegisterer: rec, MetricsCardinality: MetricsCardinalityNone})
		p := testProducer(t, c, ProducerOptions{Topic: topic})
		cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s"})
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.sum("", MetricProducersPartitions); got != 3 {
			t.Errorf("producer partitions %v, want 3", got)
		}
		if got := rec.sum("", MetricConsumersPartitions); got != 3 {
			t.Errorf("consumer partitions %v, want 3", got)
		}
		if got := rec.sum("", MetricProducersOpened); got != 1 {
			t.Errorf("producers opened %v, want 1 (one producer of 3 partitions)", got)
		}
		refused := map[brokerstub.Command]chan struct{}{brokerstub.CmdProducer: make(chan struct{}, 1),
			brokerstub.CmdSubscribe: make(chan struct{}, 1)}
		b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
			if ch := refused[ev.Type]; ch != nil {
				select {
				case ch <- struct{}{}:
				default:
				}
				return brokerstub.Action{Fail: true}
			}
			return brokerstub.Action{}
		})
		if err := b.Unload(topic + "-partition-0"); err != nil {
			t.Fatal(err)
		}
		// Wait for a refused attempt of each, then let them back in.
		<-refused[brokerstub.CmdProducer]
		<-refused[brokerstub.CmdSubscribe]
		synctest.Wait()
		b.Intercept(nil)
		if _, err := p.Send(csCtx(t), &ProducerMessage{Payload: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		csRecv(t, cons)
		if got := rec.sum("", MetricProducersReconnectFailure); got < 1 {
			t.Errorf("producer reconnect failures %v, want at least 1", got)
		}
		if got := rec.sum("", MetricConsumersReconnectFailure); got < 1 {
			t.Errorf("consumer reconnect failures %v, want at least 1", got)
		}
		p.Close()
		cons.Close()
		if got := rec.sum("", MetricProducersPartitions) + rec.sum("", MetricConsumersPartitions); got != 0 {
			t.Errorf("partitions active after close: %v", got)
		}
	})
}
