package pulsar

import (
	"fmt"
	"strings"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/topicname"
)

// The client reports the events that the official client's Prometheus
// series count to a hook, without a metrics library: ClientOptions'
// MetricsRegisterer holds a MetricsProvider, which makes one ClientMetrics
// per client. The module github.com/pulsargo/sdk/pulsar/pulsarprom is the
// Prometheus one, with the official series' names, help, types and labels:
//
//	MetricsRegisterer: pulsarprom.Registerer(prometheus.DefaultRegisterer),
//
// Without one (the default) every event costs a nil check and nothing else.

// Metric names one series of the official client's metrics (see the
// Metric constants); MetricsProvider implementations receive it. Its
// values run from 0 to NumMetrics-1.
type Metric uint8

// TopicMetrics receives one topic's events (producers, consumers,
// readers), with the labels of the client's cardinality already chosen. It
// must be safe for concurrent use and should not allocate: it is called on
// every message.
type TopicMetrics interface {
	// Add adds v (negative for a gauge going down) to a counter or gauge.
	Add(m Metric, v float64)
	// Observe records a duration, in seconds, in a histogram.
	Observe(m Metric, seconds float64)
}

// engineMetrics hands a TopicMetrics to the engines, which name their
// events with the same numbers (internal/api's Metric, from which the
// constants below take their values).
type engineMetrics struct{ m TopicMetrics }

func (e engineMetrics) Add(m api.Metric, v float64)       { e.m.Add(Metric(m), v) }
func (e engineMetrics) Observe(m api.Metric, sec float64) { e.m.Observe(Metric(m), sec) }

// ClientMetrics receives one client's events: the client-wide metrics
// (connections, lookups, RPCs) through its own Add, and a TopicMetrics per
// producer, consumer and reader from Topic.
type ClientMetrics interface {
	TopicMetrics
	// Topic returns the metrics of a producer's, consumer's or reader's
	// topic; it is called once when one is created, not per message.
	Topic(MetricsTopic) TopicMetrics
}

// MetricsTopic is the topic a TopicMetrics is for.
type MetricsTopic struct {
	// Topic is the full topic name without a partition suffix
	// ("persistent://public/default/orders").
	Topic string
	// Tenant and Namespace ("public", "public/default", as the official
	// client's labels).
	Tenant, Namespace string
	// LabelValues are the values of MetricsOptions.LabelNames, in order.
	LabelValues []string
}

// MetricsOptions are what a MetricsProvider is told about the client.
type MetricsOptions struct {
	// Cardinality is ClientOptions.MetricsCardinality (default applied).
	Cardinality MetricsCardinality
	// LabelNames are the official client's topic labels for Cardinality:
	// none, "pulsar_tenant", then "pulsar_namespace", then "topic".
	LabelNames []string
	// CustomLabels is ClientOptions.CustomMetricsLabels (nil for none).
	CustomLabels map[string]string
}

// MetricsProvider makes the metrics of a client: NewClient calls
// NewClientMetrics once, and fails with its error.
type MetricsProvider interface {
	NewClientMetrics(MetricsOptions) (ClientMetrics, error)
}

// The metrics, one per series of the official client, whose type and name
// each comment gives. Counters and gauges take Add (a gauge a negative
// value going down); histograms take Observe, in seconds. The connection,
// lookup, RPC and sending-buffer metrics go to ClientMetrics.Add, the
// others to the TopicMetrics of a producer's, consumer's or reader's
// topic.
const (
	// MetricMessagesPublished is the counter pulsar_client_messages_published.
	MetricMessagesPublished Metric = Metric(api.MetricMessagesPublished)
	// MetricBytesPublished is the counter pulsar_client_bytes_published (uncompressed payload bytes).
	MetricBytesPublished Metric = Metric(api.MetricBytesPublished)
	// MetricMessagesPending is the gauge pulsar_client_producer_pending_messages.
	MetricMessagesPending Metric = Metric(api.MetricMessagesPending)
	// MetricBytesPending is the gauge pulsar_client_producer_pending_bytes.
	MetricBytesPending Metric = Metric(api.MetricBytesPending)
	// MetricPublishErrorsTimeout is the counter pulsar_client_producer_errors{error="timeout"}.
	MetricPublishErrorsTimeout Metric = Metric(api.MetricPublishErrorsTimeout)
	// MetricPublishErrorsMsgTooLarge is the counter pulsar_client_producer_errors{error="msg_too_large"}.
	MetricPublishErrorsMsgTooLarge Metric = Metric(api.MetricPublishErrorsMsgTooLarge)
	// MetricPublishLatency is the histogram pulsar_client_producer_latency_seconds (Send to receipt).
	MetricPublishLatency Metric = Metric(api.MetricPublishLatency)
	// MetricPublishRPCLatency is the histogram pulsar_client_producer_rpc_latency_seconds (entry written to receipt).
	MetricPublishRPCLatency Metric = Metric(api.MetricPublishRPCLatency)
	// MetricMessagesReceived is the counter pulsar_client_messages_received.
	MetricMessagesReceived Metric = Metric(api.MetricMessagesReceived)
	// MetricBytesReceived is the counter pulsar_client_bytes_received.
	MetricBytesReceived Metric = Metric(api.MetricBytesReceived)
	// MetricPrefetchedMessages is the gauge pulsar_client_consumer_prefetched_messages.
	MetricPrefetchedMessages Metric = Metric(api.MetricPrefetchedMessages)
	// MetricPrefetchedBytes is the gauge pulsar_client_consumer_prefetched_bytes.
	MetricPrefetchedBytes Metric = Metric(api.MetricPrefetchedBytes)
	// MetricAcks is the counter pulsar_client_consumer_acks.
	MetricAcks Metric = Metric(api.MetricAcks)
	// MetricNacks is the counter pulsar_client_consumer_nacks.
	MetricNacks Metric = Metric(api.MetricNacks)
	// MetricDLQ is the counter pulsar_client_consumer_dlq_messages.
	MetricDLQ Metric = Metric(api.MetricDLQ)
	// MetricProcessingTime is the histogram pulsar_client_consumer_processing_time_seconds (received to acked).
	MetricProcessingTime Metric = Metric(api.MetricProcessingTime)
	// MetricProducersOpened is the counter pulsar_client_producers_opened.
	MetricProducersOpened Metric = Metric(api.MetricProducersOpened)
	// MetricProducersClosed is the counter pulsar_client_producers_closed.
	MetricProducersClosed Metric = Metric(api.MetricProducersClosed)
	// MetricProducersReconnectFailure is the counter pulsar_client_producers_reconnect_failure.
	MetricProducersReconnectFailure Metric = Metric(api.MetricProducersReconnectFailure)
	// MetricProducersReconnectMaxRetry is the counter pulsar_client_producers_reconnect_max_retry.
	MetricProducersReconnectMaxRetry Metric = Metric(api.MetricProducersReconnectMaxRetry)
	// MetricProducersPartitions is the gauge pulsar_client_producers_partitions_active.
	MetricProducersPartitions Metric = Metric(api.MetricProducersPartitions)
	// MetricConsumersOpened is the counter pulsar_client_consumers_opened.
	MetricConsumersOpened Metric = Metric(api.MetricConsumersOpened)
	// MetricConsumersClosed is the counter pulsar_client_consumers_closed.
	MetricConsumersClosed Metric = Metric(api.MetricConsumersClosed)
	// MetricConsumersReconnectFailure is the counter pulsar_client_consumers_reconnect_failure.
	MetricConsumersReconnectFailure Metric = Metric(api.MetricConsumersReconnectFailure)
	// MetricConsumersReconnectMaxRetry is the counter pulsar_client_consumers_reconnect_max_retry.
	MetricConsumersReconnectMaxRetry Metric = Metric(api.MetricConsumersReconnectMaxRetry)
	// MetricConsumersPartitions is the gauge pulsar_client_consumers_partitions_active.
	MetricConsumersPartitions Metric = Metric(api.MetricConsumersPartitions)
	// MetricReadersOpened is the counter pulsar_client_readers_opened.
	MetricReadersOpened Metric = Metric(api.MetricReadersOpened)
	// MetricReadersClosed is the counter pulsar_client_readers_closed.
	MetricReadersClosed Metric = Metric(api.MetricReadersClosed)
	// MetricConnectionsOpened is the counter pulsar_client_connections_opened.
	MetricConnectionsOpened Metric = Metric(api.MetricConnectionsOpened)
	// MetricConnectionsClosed is the counter pulsar_client_connections_closed.
	MetricConnectionsClosed Metric = Metric(api.MetricConnectionsClosed)
	// MetricConnectionsEstablishmentErrors is the counter pulsar_client_connections_establishment_errors.
	MetricConnectionsEstablishmentErrors Metric = Metric(api.MetricConnectionsEstablishmentErrors)
	// MetricConnectionsHandshakeErrors is the counter pulsar_client_connections_handshake_errors.
	MetricConnectionsHandshakeErrors Metric = Metric(api.MetricConnectionsHandshakeErrors)
	// MetricLookupRequests is the counter pulsar_client_lookup_count.
	MetricLookupRequests Metric = Metric(api.MetricLookupRequests)
	// MetricPartitionedTopicMetadataRequests is the counter pulsar_client_partitioned_topic_metadata_count.
	MetricPartitionedTopicMetadataRequests Metric = Metric(api.MetricPartitionedTopicMetadataRequests)
	// MetricRPCRequests is the counter pulsar_client_rpc_count.
	MetricRPCRequests Metric = Metric(api.MetricRPCRequests)
	// MetricSendingBuffers is the gauge pulsar_client_sending_buffers_count.
	MetricSendingBuffers Metric = Metric(api.MetricSendingBuffers)
	// NumMetrics is the number of metrics: an implementation may index an
	// array by Metric.
	NumMetrics = api.NumMetrics
)

// LabelNames returns the official client's topic labels for c (the
// default, namespace, for an unknown value).
func (c MetricsCardinality) LabelNames() []string {
	switch c {
	case MetricsCardinalityNone:
		return []string{}
	case MetricsCardinalityTenant:
		return []string{"pulsar_tenant"}
	case MetricsCardinalityTopic:
		return []string{"pulsar_tenant", "pulsar_namespace", "topic"}
	}
	return []string{"pulsar_tenant", "pulsar_namespace"}
}

// newMetrics makes the client's metrics from opts.MetricsRegisterer: nil
// for none. A value that is not a MetricsProvider (a raw
// prometheus.Registerer: the core cannot register series) fails with
// InvalidConfiguration rather than being dropped without a word.
func newMetrics(opts ClientOptions) (ClientMetrics, error) {
	if opts.MetricsRegisterer == nil {
		return nil, nil
	}
	p, ok := opts.MetricsRegisterer.(MetricsProvider)
	if !ok {
		return nil, invalidOption(InvalidConfiguration, fmt.Sprintf(
			"MetricsRegisterer: %T is not a pulsar.MetricsProvider; pulsargo's core has no metrics library: "+
				"wrap a prometheus.Registerer with pulsarprom.Registerer (github.com/pulsargo/sdk/pulsar/pulsarprom)",
			opts.MetricsRegisterer))
	}
	m, err := p.NewClientMetrics(MetricsOptions{Cardinality: opts.MetricsCardinality,
		LabelNames: opts.MetricsCardinality.LabelNames(), CustomLabels: opts.CustomMetricsLabels})
	if err != nil {
		return nil, fmt.Errorf("%w: MetricsRegisterer: %w", ErrInvalidOptions, err)
	}
	return m, nil
}

// clientRecorder is the Recorder of the client-wide metrics.
func (c *client) clientRecorder() api.Recorder {
	if c.metrics == nil {
		return api.Recorder{}
	}
	return api.NewRecorder(engineMetrics{c.metrics})
}

// topicMetrics returns the Recorder of topic's metrics (a partition counts
// as its topic), the zero Recorder without metrics or for a name that does
// not parse.
func (c *client) topicMetrics(topic string) api.Recorder {
	if c.metrics == nil {
		return api.Recorder{}
	}
	n, err := topicname.Parse(topic)
	if err != nil {
		return api.Recorder{}
	}
	t := MetricsTopic{Topic: n.Base, Namespace: n.Namespace}
	t.Tenant, _, _ = strings.Cut(n.Namespace, "/")
	vals := []string{t.Tenant, t.Namespace, t.Topic}
	t.LabelValues = vals[:len(c.opts.MetricsCardinality.LabelNames())]
	return api.NewRecorder(engineMetrics{c.metrics.Topic(t)})
}
