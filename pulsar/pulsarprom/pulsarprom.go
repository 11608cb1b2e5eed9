// Package pulsarprom registers the metrics of a pulsargo client with
// Prometheus under the official Go client's series: the same names, help
// strings, types, histogram buckets and labels (client="go", the
// CustomMetricsLabels, and the topic labels of MetricsCardinality:
// pulsar_tenant, pulsar_namespace, topic). It is its own module, so that
// only programs that want Prometheus have it in their module graph.
//
// Porting from github.com/apache/pulsar-client-go is one line:
//
//	pulsar.ClientOptions{
//		URL:               "pulsar://localhost:6650",
//		MetricsRegisterer: pulsarprom.Registerer(prometheus.DefaultRegisterer), // was: prometheus.DefaultRegisterer
//	}
//
// Like the official client, several clients may share a registerer: the
// second finds the series registered and adds to them (they must then use
// the same cardinality and custom labels; NewClient fails otherwise).
package pulsarprom

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pulsargo/sdk/pulsar"
)

// Registerer returns the pulsar.MetricsProvider to set as
// ClientOptions.MetricsRegisterer: each client registers the official
// client's series with r (nil means prometheus.DefaultRegisterer, the
// official client's default).
func Registerer(r prometheus.Registerer) pulsar.MetricsProvider {
	if r == nil {
		r = prometheus.DefaultRegisterer
	}
	return provider{r}
}

type provider struct{ r prometheus.Registerer }

// adder is what counters and gauges have in common.
type adder interface{ Add(float64) }

// clientMetrics is a client's series: the client-wide metrics resolved,
// the topic ones as vectors resolved per topic by Topic.
type clientMetrics struct {
	kinds  [pulsar.NumMetrics]kind
	adders [pulsar.NumMetrics]adder // client-wide counters and gauges
	vecs   [pulsar.NumMetrics]prometheus.Collector
}

// NewClientMetrics registers the series (reusing those already
// registered, as the official client does) and fails with the
// registerer's error for any other refusal, such as the same series with
// other labels.
func (p provider) NewClientMetrics(o pulsar.MetricsOptions) (pulsar.ClientMetrics, error) {
	constLabels := prometheus.Labels{"client": "go"}
	for k, v := range o.CustomLabels {
		constLabels[k] = v
	}
	m := &clientMetrics{}
	for _, s := range allSeries {
		c, err := register(p.r, s.collector(constLabels, o.LabelNames))
		if err != nil {
			return nil, fmt.Errorf("pulsarprom: register %s: %w", s.name, err)
		}
		m.kinds[s.metric] = s.kind
		if s.client {
			m.adders[s.metric] = c.(adder)
		} else {
			m.vecs[s.metric] = c
		}
	}
	m.kinds[pulsar.MetricPublishErrorsMsgTooLarge] = counter
	m.vecs[pulsar.MetricPublishErrorsMsgTooLarge] = m.vecs[pulsar.MetricPublishErrorsTimeout]
	return m, nil
}

// register registers c, or returns the collector already registered in
// its place.
func register(r prometheus.Registerer, c prometheus.Collector) (prometheus.Collector, error) {
	err := r.Register(c)
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
		return are.ExistingCollector, nil
	}
	return c, err
}

// Add adds to a client-wide counter or gauge (a counter ignores a negative
// value rather than panic).
func (m *clientMetrics) Add(metric pulsar.Metric, v float64) {
	if int(metric) >= len(m.adders) || m.adders[metric] == nil || (v < 0 && m.kinds[metric] == counter) {
		return
	}
	m.adders[metric].Add(v)
}

// Observe: the client-wide series have no histogram.
func (m *clientMetrics) Observe(pulsar.Metric, float64) {}

// Topic resolves every topic series for t's label values, once.
func (m *clientMetrics) Topic(t pulsar.MetricsTopic) pulsar.TopicMetrics {
	tm := &topicMetrics{kinds: &m.kinds}
	for metric, c := range m.vecs {
		values := t.LabelValues
		if e, ok := errorLabel[pulsar.Metric(metric)]; ok {
			values = append(values[:len(values):len(values)], e)
		}
		switch v := c.(type) {
		case *prometheus.CounterVec:
			tm.adders[metric] = v.WithLabelValues(values...)
		case *prometheus.GaugeVec:
			tm.adders[metric] = v.WithLabelValues(values...)
		case *prometheus.HistogramVec:
			tm.observers[metric] = v.WithLabelValues(values...)
		}
	}
	return tm
}

// topicMetrics is one topic's series, resolved: an event is an array
// index and an atomic add, no allocation.
type topicMetrics struct {
	kinds     *[pulsar.NumMetrics]kind
	adders    [pulsar.NumMetrics]adder
	observers [pulsar.NumMetrics]prometheus.Observer
}

func (t *topicMetrics) Add(metric pulsar.Metric, v float64) {
	if int(metric) >= len(t.adders) || t.adders[metric] == nil || (v < 0 && t.kinds[metric] == counter) {
		return
	}
	t.adders[metric].Add(v)
}

func (t *topicMetrics) Observe(metric pulsar.Metric, seconds float64) {
	if int(metric) >= len(t.observers) || t.observers[metric] == nil {
		return
	}
	t.observers[metric].Observe(seconds)
}
