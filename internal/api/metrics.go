package api

// Metric is the number of an event the engines report: pulsar.Metric,
// which documents each one, takes its constants' values from these (one
// list), and pulsar hands the engines its TopicMetrics as a TopicMetrics
// of this package.
type Metric uint8

// The metrics, one per series of the official client (its name after the
// constant); see pulsar's Metric constants.
const (
	// Producer (per topic).
	MetricMessagesPublished        Metric = iota // counter pulsar_client_messages_published
	MetricBytesPublished                         // counter pulsar_client_bytes_published (uncompressed payload bytes)
	MetricMessagesPending                        // gauge pulsar_client_producer_pending_messages
	MetricBytesPending                           // gauge pulsar_client_producer_pending_bytes
	MetricPublishErrorsTimeout                   // counter pulsar_client_producer_errors{error="timeout"}
	MetricPublishErrorsMsgTooLarge               // counter pulsar_client_producer_errors{error="msg_too_large"}
	MetricPublishLatency                         // histogram pulsar_client_producer_latency_seconds (Send to receipt)
	MetricPublishRPCLatency                      // histogram pulsar_client_producer_rpc_latency_seconds (entry written to receipt)

	// Consumer (per topic).
	MetricMessagesReceived   // counter pulsar_client_messages_received
	MetricBytesReceived      // counter pulsar_client_bytes_received
	MetricPrefetchedMessages // gauge pulsar_client_consumer_prefetched_messages
	MetricPrefetchedBytes    // gauge pulsar_client_consumer_prefetched_bytes
	MetricAcks               // counter pulsar_client_consumer_acks
	MetricNacks              // counter pulsar_client_consumer_nacks
	MetricDLQ                // counter pulsar_client_consumer_dlq_messages
	MetricProcessingTime     // histogram pulsar_client_consumer_processing_time_seconds (received to acked)

	// Producers, consumers and readers (per topic).
	MetricProducersOpened            // counter pulsar_client_producers_opened
	MetricProducersClosed            // counter pulsar_client_producers_closed
	MetricProducersReconnectFailure  // counter pulsar_client_producers_reconnect_failure
	MetricProducersReconnectMaxRetry // counter pulsar_client_producers_reconnect_max_retry
	MetricProducersPartitions        // gauge pulsar_client_producers_partitions_active
	MetricConsumersOpened            // counter pulsar_client_consumers_opened
	MetricConsumersClosed            // counter pulsar_client_consumers_closed
	MetricConsumersReconnectFailure  // counter pulsar_client_consumers_reconnect_failure
	MetricConsumersReconnectMaxRetry // counter pulsar_client_consumers_reconnect_max_retry
	MetricConsumersPartitions        // gauge pulsar_client_consumers_partitions_active
	MetricReadersOpened              // counter pulsar_client_readers_opened
	MetricReadersClosed              // counter pulsar_client_readers_closed

	// Client (no topic labels).
	MetricConnectionsOpened                // counter pulsar_client_connections_opened
	MetricConnectionsClosed                // counter pulsar_client_connections_closed
	MetricConnectionsEstablishmentErrors   // counter pulsar_client_connections_establishment_errors
	MetricConnectionsHandshakeErrors       // counter pulsar_client_connections_handshake_errors
	MetricLookupRequests                   // counter pulsar_client_lookup_count
	MetricPartitionedTopicMetadataRequests // counter pulsar_client_partitioned_topic_metadata_count
	MetricRPCRequests                      // counter pulsar_client_rpc_count
	MetricSendingBuffers                   // gauge pulsar_client_sending_buffers_count

	// NumMetrics is the number of metrics: a hook may index an array by
	// Metric.
	NumMetrics int = iota
)

// TopicMetrics is the engines' side of pulsar.TopicMetrics: it receives
// the events of one topic's producers, consumers and readers. It must be
// safe for concurrent use and cheap: it is called on every message.
type TopicMetrics interface {
	// Add adds v (negative for a gauge going down) to a counter or gauge.
	Add(m Metric, v float64)
	// Observe records a duration, in seconds, in a histogram.
	Observe(m Metric, seconds float64)
}

// Recorder is the engines' nil-safe handle on a TopicMetrics: its zero
// value (no metrics) costs a nil check per event and never allocates.
type Recorder struct{ m TopicMetrics }

// NewRecorder returns a Recorder sending to m; nil makes the zero
// Recorder.
func NewRecorder(m TopicMetrics) Recorder { return Recorder{m} }

// On reports whether events go anywhere, for callers that would compute a
// value (a time) only for the metrics.
func (r Recorder) On() bool { return r.m != nil }

// Add is TopicMetrics.Add, or nothing for the zero Recorder.
func (r Recorder) Add(m Metric, v float64) {
	if r.m != nil {
		r.m.Add(m, v)
	}
}

// Observe is TopicMetrics.Observe, or nothing for the zero Recorder.
func (r Recorder) Observe(m Metric, seconds float64) {
	if r.m != nil {
		r.m.Observe(m, seconds)
	}
}
