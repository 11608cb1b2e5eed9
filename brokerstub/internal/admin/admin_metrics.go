package admin

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/procmetrics"
)

// topicMetrics is one topic's numbers for /metrics, read on its goroutine.
type topicMetrics struct {
	name, namespace                          string
	producers, consumers, subscriptions      int
	msgIn, bytesIn, msgOut, bytesOut, stored int64
	backlog                                  int64
}

// metricsText renders Prometheus text format with a few of Pulsar's
// topic-level series for every loaded topic, then the Go runtime's and the
// process's figures under the standard collectors' names (procmetrics).
func (b *Web) metricsText() string {
	ts := b.Eng.LoadedTopics()
	var ms []topicMetrics
	for _, t := range ts {
		var m topicMetrics
		err := t.Call(func() {
			n, c := t.TopicName(), t.Counts()
			m = topicMetrics{name: n.Full, namespace: n.Namespace,
				producers: c.Producers, subscriptions: c.Subscriptions, consumers: c.Consumers,
				msgIn: c.MsgIn, bytesIn: c.BytesIn, msgOut: c.MsgOut, bytesOut: c.BytesOut,
				stored: c.StorageSize, backlog: c.Backlog}
		})
		if err == nil {
			ms = append(ms, m)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].name < ms[j].name })
	var sb strings.Builder
	cluster := b.Cfg.ClusterName
	series := []struct {
		name, typ, help string
		v               func(topicMetrics) int64
	}{
		{"pulsar_in_messages_total", "counter", "Messages received by the topic", func(m topicMetrics) int64 { return m.msgIn }},
		{"pulsar_in_bytes_total", "counter", "Bytes received by the topic", func(m topicMetrics) int64 { return m.bytesIn }},
		{"pulsar_out_messages_total", "counter", "Messages dispatched from the topic", func(m topicMetrics) int64 { return m.msgOut }},
		{"pulsar_out_bytes_total", "counter", "Bytes dispatched from the topic", func(m topicMetrics) int64 { return m.bytesOut }},
		{"pulsar_msg_backlog", "gauge", "Entries not acknowledged, over all subscriptions", func(m topicMetrics) int64 { return m.backlog }},
		{"pulsar_storage_size", "gauge", "Bytes the topic's entries hold", func(m topicMetrics) int64 { return m.stored }},
		{"pulsar_subscriptions_count", "gauge", "Subscriptions of the topic", func(m topicMetrics) int64 { return int64(m.subscriptions) }},
		{"pulsar_producers_count", "gauge", "Producers attached to the topic", func(m topicMetrics) int64 { return int64(m.producers) }},
		{"pulsar_consumers_count", "gauge", "Consumers attached to the topic", func(m topicMetrics) int64 { return int64(m.consumers) }},
	}
	for _, s := range series {
		fmt.Fprintf(&sb, "# HELP %s %s\n# TYPE %s %s\n", s.name, s.help, s.name, s.typ)
		for _, m := range ms {
			fmt.Fprintf(&sb, "%s{cluster=%q,namespace=%q,topic=%q} %d\n", s.name, cluster, m.namespace, m.name, s.v(m))
		}
	}
	fmt.Fprintf(&sb, "# HELP pulsar_topics_count Topics loaded by the broker\n# TYPE pulsar_topics_count gauge\npulsar_topics_count{cluster=%q} %d\n", cluster, len(ms))
	_ = procmetrics.Write(&sb) // a strings.Builder does not fail
	return sb.String()
}

func getMetrics(rq *adminReq) (any, error) {
	return rawReply{contentType: "text/plain; version=0.0.4; charset=utf-8", body: []byte(rq.b.metricsText())}, nil
}
