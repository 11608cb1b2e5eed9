package pulsarprom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pulsargo/sdk/pulsar"
)

// kind is how a series takes values.
type kind uint8

const (
	counter kind = iota
	gauge
	histogram
)

// series is one of the official client's series: its name, help and type
// exactly as github.com/apache/pulsar-client-go v0.19.0 registers them
// (pulsar/internal/metrics.go), so that dashboards and alerts carry over.
type series struct {
	metric pulsar.Metric
	kind   kind
	name   string
	help   string
	client bool // no topic labels
}

// latencyBuckets are the official client's buckets of its three
// histograms, in seconds.
var latencyBuckets = []float64{.0005, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// allSeries lists every series; pulsar_client_producer_errors is two
// metrics of one series (its "error" label: timeout, msg_too_large).
var allSeries = []series{
	{pulsar.MetricMessagesPublished, counter, "pulsar_client_messages_published", "Counter of messages published by the client", false},
	{pulsar.MetricBytesPublished, counter, "pulsar_client_bytes_published", "Counter of messages published by the client", false},
	{pulsar.MetricMessagesPending, gauge, "pulsar_client_producer_pending_messages", "Counter of messages pending to be published by the client", false},
	{pulsar.MetricBytesPending, gauge, "pulsar_client_producer_pending_bytes", "Counter of bytes pending to be published by the client", false},
	{pulsar.MetricPublishErrorsTimeout, counter, "pulsar_client_producer_errors", "Counter of publish errors", false},
	{pulsar.MetricPublishLatency, histogram, "pulsar_client_producer_latency_seconds", "Publish latency experienced by the client", false},
	{pulsar.MetricPublishRPCLatency, histogram, "pulsar_client_producer_rpc_latency_seconds", "Publish RPC latency experienced internally by the client when sending data to receiving an ack", false},
	{pulsar.MetricSendingBuffers, gauge, "pulsar_client_sending_buffers_count", "Number of sending buffers", true},
	{pulsar.MetricProducersOpened, counter, "pulsar_client_producers_opened", "Counter of producers created by the client", false},
	{pulsar.MetricProducersClosed, counter, "pulsar_client_producers_closed", "Counter of producers closed by the client", false},
	{pulsar.MetricProducersPartitions, gauge, "pulsar_client_producers_partitions_active", "Counter of individual partitions the producers are currently active", false},
	{pulsar.MetricProducersReconnectFailure, counter, "pulsar_client_producers_reconnect_failure", "Counter of reconnect failure of producers", false},
	{pulsar.MetricProducersReconnectMaxRetry, counter, "pulsar_client_producers_reconnect_max_retry", "Counter of producer reconnect max retry reached", false},
	{pulsar.MetricConsumersOpened, counter, "pulsar_client_consumers_opened", "Counter of consumers created by the client", false},
	{pulsar.MetricConsumersClosed, counter, "pulsar_client_consumers_closed", "Counter of consumers closed by the client", false},
	{pulsar.MetricConsumersReconnectFailure, counter, "pulsar_client_consumers_reconnect_failure", "Counter of reconnect failure of consumers", false},
	{pulsar.MetricConsumersReconnectMaxRetry, counter, "pulsar_client_consumers_reconnect_max_retry", "Counter of consumer reconnect max retry reached", false},
	{pulsar.MetricConsumersPartitions, gauge, "pulsar_client_consumers_partitions_active", "Counter of individual partitions the consumers are currently active", false},
	{pulsar.MetricMessagesReceived, counter, "pulsar_client_messages_received", "Counter of messages received by the client", false},
	{pulsar.MetricBytesReceived, counter, "pulsar_client_bytes_received", "Counter of bytes received by the client", false},
	{pulsar.MetricPrefetchedMessages, gauge, "pulsar_client_consumer_prefetched_messages", "Number of messages currently sitting in the consumer pre-fetch queue", false},
	{pulsar.MetricPrefetchedBytes, gauge, "pulsar_client_consumer_prefetched_bytes", "Total number of bytes currently sitting in the consumer pre-fetch queue", false},
	{pulsar.MetricAcks, counter, "pulsar_client_consumer_acks", "Counter of messages acked by client", false},
	{pulsar.MetricNacks, counter, "pulsar_client_consumer_nacks", "Counter of messages nacked by client", false},
	{pulsar.MetricDLQ, counter, "pulsar_client_consumer_dlq_messages", "Counter of messages sent to Dead letter queue", false},
	{pulsar.MetricProcessingTime, histogram, "pulsar_client_consumer_processing_time_seconds", "Time it takes for application to process messages", false},
	{pulsar.MetricReadersOpened, counter, "pulsar_client_readers_opened", "Counter of readers created by the client", false},
	{pulsar.MetricReadersClosed, counter, "pulsar_client_readers_closed", "Counter of readers closed by the client", false},
	{pulsar.MetricConnectionsOpened, counter, "pulsar_client_connections_opened", "Counter of connections created by the client", true},
	{pulsar.MetricConnectionsClosed, counter, "pulsar_client_connections_closed", "Counter of connections closed by the client", true},
	{pulsar.MetricConnectionsEstablishmentErrors, counter, "pulsar_client_connections_establishment_errors", "Counter of errors in connections establishment", true},
	{pulsar.MetricConnectionsHandshakeErrors, counter, "pulsar_client_connections_handshake_errors", "Counter of errors in connections handshake (eg: authz)", true},
	{pulsar.MetricLookupRequests, counter, "pulsar_client_lookup_count", "Counter of lookup requests made by the client", true},
	{pulsar.MetricPartitionedTopicMetadataRequests, counter, "pulsar_client_partitioned_topic_metadata_count", "Counter of partitioned_topic_metadata requests made by the client", true},
	{pulsar.MetricRPCRequests, counter, "pulsar_client_rpc_count", "Counter of RPC requests made by the client", true},
}

// errorLabel is the "error" label of the two producer-error metrics.
var errorLabel = map[pulsar.Metric]string{
	pulsar.MetricPublishErrorsTimeout:     "timeout",
	pulsar.MetricPublishErrorsMsgTooLarge: "msg_too_large",
}

// collector makes the series' collector: a vector over the topic labels
// (plus "error" for the producer errors), or a single metric for the
// client's own series. Const labels are client="go" and the custom labels,
// as the official client's.
func (s series) collector(constLabels prometheus.Labels, labels []string) prometheus.Collector {
	if s.metric == pulsar.MetricPublishErrorsTimeout {
		labels = append(labels[:len(labels):len(labels)], "error")
	}
	switch {
	case s.client && s.kind == gauge:
		return prometheus.NewGauge(prometheus.GaugeOpts{Name: s.name, Help: s.help, ConstLabels: constLabels})
	case s.client:
		return prometheus.NewCounter(prometheus.CounterOpts{Name: s.name, Help: s.help, ConstLabels: constLabels})
	case s.kind == counter:
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: s.name, Help: s.help, ConstLabels: constLabels}, labels)
	case s.kind == gauge:
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: s.name, Help: s.help, ConstLabels: constLabels}, labels)
	}
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: s.name, Help: s.help, ConstLabels: constLabels,
		Buckets: latencyBuckets}, labels)
}
