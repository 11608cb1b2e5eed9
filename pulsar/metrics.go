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
// Metric constants); MetricsProvider implementations receive it.
type Metric = api.Metric

// TopicMetrics receives one topic's events (producers, consumers,
// readers), with the labels of the client's cardinality already chosen. It
// must be safe for concurrent use and should not allocate: it is called on
// every message.
type TopicMetrics = api.TopicMetrics

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

// The metrics, one per series of the official client; see internal/api
// for the series each names.
const (
	MetricMessagesPublished                = api.MetricMessagesPublished
	MetricBytesPublished                   = api.MetricBytesPublished
	MetricMessagesPending                  = api.MetricMessagesPending
	MetricBytesPending                     = api.MetricBytesPending
	MetricPublishErrorsTimeout             = api.MetricPublishErrorsTimeout
	MetricPublishErrorsMsgTooLarge         = api.MetricPublishErrorsMsgTooLarge
	MetricPublishLatency                   = api.MetricPublishLatency
	MetricPublishRPCLatency                = api.MetricPublishRPCLatency
	MetricMessagesReceived                 = api.MetricMessagesReceived
	MetricBytesReceived                    = api.MetricBytesReceived
	MetricPrefetchedMessages               = api.MetricPrefetchedMessages
	MetricPrefetchedBytes                  = api.MetricPrefetchedBytes
	MetricAcks                             = api.MetricAcks
	MetricNacks                            = api.MetricNacks
	MetricDLQ                              = api.MetricDLQ
	MetricProcessingTime                   = api.MetricProcessingTime
	MetricProducersOpened                  = api.MetricProducersOpened
	MetricProducersClosed                  = api.MetricProducersClosed
	MetricProducersReconnectFailure        = api.MetricProducersReconnectFailure
	MetricProducersReconnectMaxRetry       = api.MetricProducersReconnectMaxRetry
	MetricProducersPartitions              = api.MetricProducersPartitions
	MetricConsumersOpened                  = api.MetricConsumersOpened
	MetricConsumersClosed                  = api.MetricConsumersClosed
	MetricConsumersReconnectFailure        = api.MetricConsumersReconnectFailure
	MetricConsumersReconnectMaxRetry       = api.MetricConsumersReconnectMaxRetry
	MetricConsumersPartitions              = api.MetricConsumersPartitions
	MetricReadersOpened                    = api.MetricReadersOpened
	MetricReadersClosed                    = api.MetricReadersClosed
	MetricConnectionsOpened                = api.MetricConnectionsOpened
	MetricConnectionsClosed                = api.MetricConnectionsClosed
	MetricConnectionsEstablishmentErrors   = api.MetricConnectionsEstablishmentErrors
	MetricConnectionsHandshakeErrors       = api.MetricConnectionsHandshakeErrors
	MetricLookupRequests                   = api.MetricLookupRequests
	MetricPartitionedTopicMetadataRequests = api.MetricPartitionedTopicMetadataRequests
	MetricRPCRequests                      = api.MetricRPCRequests
	MetricSendingBuffers                   = api.MetricSendingBuffers
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
		return nil, api.InvalidOption(InvalidConfiguration, fmt.Sprintf(
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
	return api.NewRecorder(c.metrics)
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
	return api.NewRecorder(c.metrics.Topic(t))
}
