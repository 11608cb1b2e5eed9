package pulsar

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/api"
)

// recorder is a MetricsProvider that keeps what the client reports: the
// sum of the values added and the number of observations, per label set
// ("" for the client's own metrics).
type recorder struct {
	mu      sync.Mutex
	opts    MetricsOptions
	topics  []MetricsTopic
	sums    map[string]map[Metric]float64
	observe map[string]map[Metric]int
}

func newRecorder() *recorder {
	return &recorder{sums: map[string]map[Metric]float64{}, observe: map[string]map[Metric]int{}}
}

func (r *recorder) NewClientMetrics(o MetricsOptions) (ClientMetrics, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts = o
	return recorderTopic{r, ""}, nil
}

type recorderTopic struct {
	r   *recorder
	key string
}

func (t recorderTopic) Add(m Metric, v float64) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.r.sums[t.key] == nil {
		t.r.sums[t.key] = map[Metric]float64{}
	}
	t.r.sums[t.key][m] += v
}

func (t recorderTopic) Observe(m Metric, s float64) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if s < 0 {
		panic("negative duration")
	}
	if t.r.observe[t.key] == nil {
		t.r.observe[t.key] = map[Metric]int{}
	}
	t.r.observe[t.key][m]++
}

func (t recorderTopic) Topic(mt MetricsTopic) TopicMetrics {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	t.r.topics = append(t.r.topics, mt)
	return recorderTopic{t.r, strings.Join(mt.LabelValues, ",")}
}

func (r *recorder) sum(key string, m Metric) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sums[key][m]
}

func (r *recorder) observed(key string, m Metric) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.observe[key][m]
}

// TestMetricsHookSeesEvents produces and consumes over the real protocol
// and checks every count the hook was given, with the labels of the topic
// cardinality.
func TestMetricsHookSeesEvents(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
	rec := newRecorder()
	c := testClient(t, b, ClientOptions{MetricsRegisterer: rec, MetricsCardinality: MetricsCardinalityTopic,
		CustomMetricsLabels: map[string]string{"app": "orders"}})
	topic := testTopic(t)
	if got := rec.opts.LabelNames; !slices.Equal(got, []string{"pulsar_tenant", "pulsar_namespace", "topic"}) {
		t.Fatalf("label names %v", got)
	}
	if rec.opts.CustomLabels["app"] != "orders" {
		t.Fatalf("custom labels %v", rec.opts.CustomLabels)
	}
	key := "public,public/default," + topic

	cons, err := c.Subscribe(ConsumerOptions{Topic: topic, SubscriptionName: "s", Type: Shared})
	if err != nil {
		t.Fatal(err)
	}
	p := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true})
	if rec.sum(key, MetricProducersPartitions) != 1 || rec.sum(key, MetricConsumersPartitions) != 1 {
		t.Fatalf("partitions active: producers %v consumers %v", rec.sum(key, MetricProducersPartitions), rec.sum(key, MetricConsumersPartitions))
	}
	ctx := ctxFor(t, 10*time.Second)
	for range 3 {
		if _, err := p.Send(ctx, &ProducerMessage{Payload: []byte("0123456789")}); err != nil {
			t.Fatal(err)
		}
	}
	for metric, want := range map[Metric]float64{MetricMessagesPublished: 3, MetricBytesPublished: 30,
		MetricMessagesPending: 0, MetricBytesPending: 0, MetricProducersOpened: 1} {
		if got := rec.sum(key, metric); got != want {
			t.Errorf("metric %d = %v, want %v", metric, got, want)
		}
	}
	if n := rec.observed(key, MetricPublishLatency); n != 3 {
		t.Errorf("publish latency observed %d times, want 3", n)
	}
	if n := rec.observed(key, MetricPublishRPCLatency); n != 3 {
		t.Errorf("publish RPC latency observed %d times, want 3", n)
	}
	var msgs []Message
	for range 3 {
		m, err := cons.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	_ = cons.Ack(msgs[0])
	_ = cons.AckID(msgs[1].ID())
	cons.Nack(msgs[2])
	for metric, want := range map[Metric]float64{MetricMessagesReceived: 3, MetricBytesReceived: 30,
		MetricPrefetchedMessages: 0, MetricPrefetchedBytes: 0, MetricAcks: 2, MetricNacks: 1, MetricConsumersOpened: 1} {
		if got := rec.sum(key, metric); got != want {
			t.Errorf("metric %d = %v, want %v", metric, got, want)
		}
	}
	if n := rec.observed(key, MetricProcessingTime); n != 2 {
		t.Errorf("processing time observed %d times, want 2", n)
	}
	p.Close()
	cons.Close()
	for metric, want := range map[Metric]float64{MetricProducersClosed: 1, MetricConsumersClosed: 1,
		MetricProducersPartitions: 0, MetricConsumersPartitions: 0} {
		if got := rec.sum(key, metric); got != want {
			t.Errorf("metric %d = %v, want %v", metric, got, want)
		}
	}
	for _, metric := range []Metric{MetricConnectionsOpened, MetricLookupRequests, MetricPartitionedTopicMetadataRequests, MetricRPCRequests} {
		if rec.sum("", metric) < 1 {
			t.Errorf("client metric %d = %v, want at least 1", metric, rec.sum("", metric))
		}
	}
	opened := rec.sum("", MetricConnectionsOpened)
	c.Close()
	if got := rec.sum("", MetricConnectionsClosed); got != opened {
		t.Errorf("connections closed %v, opened %v", got, opened)
	}
}

// TestMetricsCardinalityLabels checks the label values each cardinality
// gives, a partition counting as its topic.
func TestMetricsCardinalityLabels(t *testing.T) {
	rec := newRecorder()
	for card, want := range map[MetricsCardinality][]string{
		MetricsCardinalityNone:      {},
		MetricsCardinalityTenant:    {"t1"},
		MetricsCardinalityNamespace: {"t1", "t1/ns"},
		0:                           {"t1", "t1/ns"},
		MetricsCardinalityTopic:     {"t1", "t1/ns", "persistent://t1/ns/x"},
	} {
		c, err := newClient(ClientOptions{URL: "pulsar://localhost:1", MetricsRegisterer: rec, MetricsCardinality: card})
		if err != nil {
			t.Fatal(err)
		}
		rec.topics = nil
		c.topicMetrics("persistent://t1/ns/x-partition-3")
		c.Close()
		if len(rec.topics) != 1 || !slices.Equal(rec.topics[0].LabelValues, want) || rec.topics[0].Topic != "persistent://t1/ns/x" {
			t.Errorf("cardinality %d: topics %+v, want label values %v", card, rec.topics, want)
		}
		if len(rec.opts.LabelNames) != len(want) {
			t.Errorf("cardinality %d: label names %v for values %v", card, rec.opts.LabelNames, want)
		}
	}
}

// TestMetricsRegistererNotAProvider: a value the core cannot use (a raw
// prometheus.Registerer) fails NewClient with InvalidConfiguration.
func TestMetricsRegistererNotAProvider(t *testing.T) {
	type registry struct{ Register func() error }
	_, err := NewClient(ClientOptions{URL: "pulsar://localhost:6650", MetricsRegisterer: &registry{}})
	var pe *Error
	if !errors.As(err, &pe) || pe.Result() != InvalidConfiguration || !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("err %v, want InvalidConfiguration", err)
	}
	if !strings.Contains(err.Error(), "pulsarprom.Registerer") {
		t.Errorf("the error does not say what to do: %v", err)
	}
	_, err = NewClient(ClientOptions{URL: "pulsar://localhost:6650", MetricsRegisterer: failingProvider{}})
	if !errors.Is(err, ErrInvalidOptions) || !errors.Is(err, errProviderFailed) {
		t.Fatalf("err %v, want the provider's error wrapped", err)
	}
}

var errProviderFailed = errors.New("provider failed")

type failingProvider struct{}

func (failingProvider) NewClientMetrics(MetricsOptions) (ClientMetrics, error) {
	return nil, errProviderFailed
}

// TestMetricsPublishErrors counts a message larger than the memory limit
// and a send timeout under the official client's two error labels.
func TestMetricsPublishErrors(t *testing.T) {
	synctest.Test(t, testMetricsPublishErrors)
}

func testMetricsPublishErrors(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true, Logger: csLogger()})
	rec := newRecorder()
	c := testClient(t, b, ClientOptions{MetricsRegisterer: rec, MemoryLimitBytes: 1 << 10})
	topic := testTopic(t)
	key := "public,public/default"
	p := testProducer(t, c, ProducerOptions{Topic: topic, DisableBatching: true, SendTimeout: 300 * time.Millisecond})
	ctx := ctxFor(t, 10*time.Second)
	if _, err := p.Send(ctx, &ProducerMessage{Payload: make([]byte, 2<<10)}); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("send larger than the memory limit: %v", err)
	}
	b.Intercept(func(ev brokerstub.Event) brokerstub.Action {
		return brokerstub.Action{Drop: ev.Type == brokerstub.CmdSend}
	})
	if _, err := p.Send(ctx, &ProducerMessage{Payload: []byte("x")}); !errors.Is(err, ErrSendTimeout) {
		t.Fatalf("send with receipts dropped: %v", err)
	}
	b.Intercept(nil)
	if got := rec.sum(key, MetricPublishErrorsMsgTooLarge); got != 1 {
		t.Errorf("msg_too_large errors %v, want 1", got)
	}
	if got := rec.sum(key, MetricPublishErrorsTimeout); got != 1 {
		t.Errorf("timeout errors %v, want 1", got)
	}
	if got := rec.sum(key, MetricMessagesPending); got != 0 {
		t.Errorf("pending messages %v after the failures, want 0", got)
	}
	if got := rec.sum(key, MetricMessagesPublished); got != 0 {
		t.Errorf("published %v, want 0", got)
	}
}

// TestMetricsReader counts readers opened and closed, and as consumers
// too, as the official client (its reader is a consumer).
func TestMetricsReader(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{NoListener: true})
	rec := newRecorder()
	c := testClient(t, b, ClientOptions{MetricsRegisterer: rec, MetricsCardinality: MetricsCardinalityNone})
	r, err := c.CreateReader(ReaderOptions{Topic: testTopic(t), StartMessageID: EarliestMessageID()})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.sum("", MetricReadersOpened); got != 1 {
		t.Errorf("readers opened %v, want 1", got)
	}
	if got := rec.sum("", MetricConsumersPartitions); got != 1 {
		t.Errorf("consumer partitions %v for a reader, want 1", got)
	}
	if got := rec.sum("", MetricConsumersOpened); got != 1 {
		t.Errorf("consumers opened %v for a reader, want 1", got)
	}
	r.Close()
	if got := rec.sum("", MetricReadersClosed); got != 1 {
		t.Errorf("readers closed %v, want 1", got)
	}
	if got := rec.sum("", MetricConsumersPartitions); got != 0 {
		t.Errorf("consumer partitions %v after the reader closed, want 0", got)
	}
}

// TestMetricsNoneAllocatesNothing: without a MetricsRegisterer the hook
// calls of the send and receive paths allocate nothing.
func TestMetricsNoneAllocatesNothing(t *testing.T) {
	var r api.Recorder
	if n := testing.AllocsPerRun(1000, func() {
		r.Add(api.MetricMessagesPublished, 1)
		r.Add(api.MetricBytesPending, -10)
		r.Observe(api.MetricPublishLatency, 0.001)
	}); n != 0 {
		t.Fatalf("%v allocations per event without metrics", n)
	}
}

// BenchmarkSendMetrics is the cost of the hook on Send: none, and a
// recorder (go test -bench SendMetrics -benchmem ./pulsar).
func BenchmarkSendMetrics(b *testing.B) {
	for _, tc := range []struct {
		name string
		reg  any
	}{{"none", nil}, {"hook", nopProvider{}}} {
		b.Run(tc.name, func(b *testing.B) {
			broker := brokerstub.RunT(b, brokerstub.Options{NoListener: true})
			c, err := newClient(ClientOptions{URL: broker.URL(), Dialer: broker.Dial, MetricsRegisterer: tc.reg})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			p, err := c.CreateProducer(ProducerOptions{Topic: "bench-metrics-" + tc.name})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			msg := &ProducerMessage{Payload: make([]byte, 100)}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.SendAsync(ctx, msg, func(MessageID, *ProducerMessage, error) {})
			}
			_ = p.Flush()
		})
	}
}

// nopProvider is a hook that does nothing, to measure the calls alone.
type nopProvider struct{}

func (nopProvider) NewClientMetrics(MetricsOptions) (ClientMetrics, error) { return nopMetrics{}, nil }

type nopMetrics struct{}

func (nopMetrics) Add(Metric, float64)             {}
func (nopMetrics) Observe(Metric, float64)         {}
func (nopMetrics) Topic(MetricsTopic) TopicMetrics { return nopMetrics{} }
