package pulsarprom_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
	"github.com/pulsargo/sdk/pulsar/pulsarprom"
)

// gathered returns the registry's families by name.
func gathered(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// labels returns a metric's labels as a map.
func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// TestRegistererAfterProduceConsume produces and consumes against
// brokerstub and reads the values back from a prometheus.Registry.
func TestRegistererAfterProduceConsume(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
	reg := prometheus.NewRegistry()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Dialer: b.Dial,
		MetricsRegisterer: pulsarprom.Registerer(reg), MetricsCardinality: pulsar.MetricsCardinalityTopic,
		CustomMetricsLabels: map[string]string{"app": "orders"}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	topic := "persistent://public/default/prom-orders"
	cons, err := client.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	prod, err := client.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 4 {
		if _, err := prod.Send(ctx, &pulsar.ProducerMessage{Payload: []byte("hello")}); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		m, err := cons.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := cons.Ack(m); err != nil {
			t.Fatal(err)
		}
	}
	fams := gathered(t, reg)
	want := map[string]string{"client": "go", "app": "orders", "pulsar_tenant": "public",
		"pulsar_namespace": "public/default", "topic": topic}
	for name, value := range map[string]float64{
		"pulsar_client_messages_published": 4, "pulsar_client_bytes_published": 20,
		"pulsar_client_messages_received": 4, "pulsar_client_bytes_received": 20,
		"pulsar_client_consumer_acks": 4, "pulsar_client_producers_opened": 1, "pulsar_client_consumers_opened": 1,
		"pulsar_client_producers_partitions_active": 1, "pulsar_client_consumers_partitions_active": 1,
		"pulsar_client_producer_pending_messages": 0, "pulsar_client_consumer_prefetched_messages": 0,
	} {
		f := fams[name]
		if f == nil || len(f.GetMetric()) != 1 {
			t.Errorf("%s: family %v", name, f)
			continue
		}
		m := f.GetMetric()[0]
		if got := labels(m); !mapsEqual(got, want) {
			t.Errorf("%s: labels %v, want %v", name, got, want)
		}
		got := m.GetCounter().GetValue() + m.GetGauge().GetValue()
		if got != value {
			t.Errorf("%s = %v, want %v", name, got, value)
		}
	}
	lat := fams["pulsar_client_producer_latency_seconds"]
	if lat.GetType() != dto.MetricType_HISTOGRAM || lat.GetMetric()[0].GetHistogram().GetSampleCount() != 4 {
		t.Errorf("publish latency: %v", lat)
	}
	var bounds []float64
	for _, bk := range lat.GetMetric()[0].GetHistogram().GetBucket() {
		bounds = append(bounds, bk.GetUpperBound())
	}
	if !slices.Equal(bounds, []float64{.0005, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}) {
		t.Errorf("buckets %v", bounds)
	}
	if pt := fams["pulsar_client_consumer_processing_time_seconds"]; pt.GetMetric()[0].GetHistogram().GetSampleCount() != 4 {
		t.Errorf("processing time: %v", pt)
	}
	conns := fams["pulsar_client_connections_opened"]
	if conns.GetType() != dto.MetricType_COUNTER || conns.GetMetric()[0].GetCounter().GetValue() < 1 ||
		!mapsEqual(labels(conns.GetMetric()[0]), map[string]string{"client": "go", "app": "orders"}) {
		t.Errorf("connections opened: %v", conns)
	}
	if h := fams["pulsar_client_connections_opened"].GetHelp(); h != "Counter of connections created by the client" {
		t.Errorf("help %q", h)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestTwoClientsShareARegistry: the second client adds to the series the
// first registered, as the official client's do.
func TestTwoClientsShareARegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		c, err := pulsar.NewClient(pulsar.ClientOptions{URL: "pulsar://localhost:6650", MetricsRegisterer: pulsarprom.Registerer(reg)})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	_, err := pulsar.NewClient(pulsar.ClientOptions{URL: "pulsar://localhost:6650", MetricsRegisterer: pulsarprom.Registerer(reg),
		MetricsCardinality: pulsar.MetricsCardinalityTopic})
	if err == nil {
		t.Fatal("a client with other labels on the same registry: no error")
	}
}

// TestTopicEventsAllocateNothing: an event on a resolved topic is an
// array index and an atomic add.
func TestTopicEventsAllocateNothing(t *testing.T) {
	cm, err := pulsarprom.Registerer(prometheus.NewRegistry()).NewClientMetrics(pulsar.MetricsOptions{
		LabelNames: pulsar.MetricsCardinalityNamespace.LabelNames()})
	if err != nil {
		t.Fatal(err)
	}
	tm := cm.Topic(pulsar.MetricsTopic{Topic: "persistent://a/b/c", Tenant: "a", Namespace: "a/b", LabelValues: []string{"a", "a/b"}})
	if n := testing.AllocsPerRun(1000, func() {
		tm.Add(pulsar.MetricMessagesPublished, 1)
		tm.Add(pulsar.MetricBytesPending, -5)
		tm.Add(pulsar.MetricAcks, -1) // a counter ignores it
		tm.Observe(pulsar.MetricPublishLatency, 0.002)
		cm.Add(pulsar.MetricConnectionsOpened, 1)
	}); n != 0 {
		t.Fatalf("%v allocations per event", n)
	}
}
