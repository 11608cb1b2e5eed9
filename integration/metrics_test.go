package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/pulsar"
	"github.com/pulsargo/sdk/pulsar/pulsarprom"
)

// family is what a client's metric family looks like, values aside for the
// series whose values depend on timing.
type family struct {
	typ    dto.MetricType
	help   string
	labels []string // label names of its metrics, sorted and deduplicated
}

// families gathers reg into the families named pulsar_client_*.
func families(t *testing.T, reg *prometheus.Registry) (map[string]family, map[string]float64) {
	t.Helper()
	fams, err := reg.Gather()
	require.NoError(t, err)
	out, values := map[string]family{}, map[string]float64{}
	for _, f := range fams {
		if !strings.HasPrefix(f.GetName(), "pulsar_client_") {
			continue
		}
		fam := family{typ: f.GetType(), help: f.GetHelp()}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				fam.labels = append(fam.labels, l.GetName())
			}
			values[f.GetName()] += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
		slices.Sort(fam.labels)
		fam.labels = slices.Compact(fam.labels)
		out[f.GetName()] = fam
	}
	return out, values
}

// TestMetricsSeriesMatchOfficial runs the official client and pulsargo
// with pulsarprom against the same stub, the same workload and the same
// metrics options, and diffs the gathered families: names, types, help,
// label names, and the counts that do not depend on timing.
func TestMetricsSeriesMatchOfficial(t *testing.T) {
	for _, card := range []struct {
		name string
		off  official.MetricsCardinality
		ours pulsar.MetricsCardinality
	}{
		{"none", official.MetricsCardinalityNone, pulsar.MetricsCardinalityNone},
		{"namespace", official.MetricsCardinalityNamespace, pulsar.MetricsCardinalityNamespace},
		{"topic", official.MetricsCardinalityTopic, pulsar.MetricsCardinalityTopic},
	} {
		t.Run(card.name, func(t *testing.T) {
			b := startStub(t)
			custom := map[string]string{"app": "orders"}
			const n = 5

			offReg := prometheus.NewRegistry()
			oc, err := official.NewClient(official.ClientOptions{URL: b.URL(), OperationTimeout: 10 * time.Second,
				Logger: quietLogger(), MetricsRegisterer: offReg, MetricsCardinality: card.off, CustomMetricsLabels: custom})
			require.NoError(t, err)
			officialMetricsWorkload(t, oc, newTopic(t), n)
			oc.Close()

			ourReg := prometheus.NewRegistry()
			pc, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), OperationTimeout: 10 * time.Second,
				MetricsRegisterer: pulsarprom.Registerer(ourReg), MetricsCardinality: card.ours, CustomMetricsLabels: custom})
			require.NoError(t, err)
			sdkMetricsWorkload(t, pc, newTopic(t), n)
			pc.Close()

			offFams, offVals := families(t, offReg)
			ourFams, ourVals := families(t, ourReg)
			require.NotEmpty(t, offFams)
			for name, f := range offFams {
				g, ok := ourFams[name]
				if !ok {
					t.Errorf("%s: registered by the official client, not by pulsargo", name)
					continue
				}
				if g.typ != f.typ || g.help != f.help || !slices.Equal(g.labels, f.labels) {
					t.Errorf("%s: pulsargo %v %q %v, official %v %q %v", name, g.typ, g.help, g.labels, f.typ, f.help, f.labels)
				}
			}
			for name := range ourFams {
				if _, ok := offFams[name]; !ok {
					t.Errorf("%s: registered by pulsargo, not by the official client", name)
				}
			}
			for _, name := range []string{"pulsar_client_messages_published", "pulsar_client_bytes_published",
				"pulsar_client_messages_received", "pulsar_client_bytes_received",
				"pulsar_client_producer_latency_seconds", "pulsar_client_producer_rpc_latency_seconds",
				"pulsar_client_producers_opened", "pulsar_client_producers_closed", "pulsar_client_consumers_opened",
				"pulsar_client_consumers_closed", "pulsar_client_readers_opened", "pulsar_client_readers_closed",
				"pulsar_client_producer_pending_messages", "pulsar_client_producers_partitions_active",
				"pulsar_client_consumers_partitions_active", "pulsar_client_consumer_prefetched_messages"} {
				if ourVals[name] != offVals[name] {
					t.Errorf("%s: pulsargo %v, official %v", name, ourVals[name], offVals[name])
				}
			}
			// Deliberately different: the official reader acknowledges each
			// message Next returns (counted as an ack, with its processing
			// time); pulsargo's reader, on its non-durable subscription,
			// acknowledges nothing, so only the consumer's n acks count.
			for _, name := range []string{"pulsar_client_consumer_acks", "pulsar_client_consumer_processing_time_seconds"} {
				if ourVals[name] != n || offVals[name] != 2*n {
					t.Errorf("%s: pulsargo %v (want %d: the consumer's), official %v (want %d: consumer and reader)",
						name, ourVals[name], n, offVals[name], 2*n)
				}
			}
			t.Logf("%d families compared", len(offFams))
		})
	}
}

func officialMetricsWorkload(t *testing.T, c official.Client, topic string, n int) {
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	for i := range n {
		_, err := prod.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i)})
		require.NoError(t, err)
	}
	for range n {
		m, err := cons.Receive(ctxT(t))
		require.NoError(t, err)
		require.NoError(t, cons.Ack(m))
	}
	r, err := c.CreateReader(official.ReaderOptions{Topic: topic, StartMessageID: official.EarliestMessageID()})
	require.NoError(t, err)
	for range n {
		_, err := r.Next(ctxT(t))
		require.NoError(t, err)
	}
	r.Close()
	prod.Close()
	cons.Close()
}

func sdkMetricsWorkload(t *testing.T, c pulsar.Client, topic string, n int) {
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "s"})
	require.NoError(t, err)
	prod, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, DisableBatching: true})
	require.NoError(t, err)
	for i := range n {
		_, err := prod.Send(ctxT(t), &pulsar.ProducerMessage{Payload: fmt.Appendf(nil, "m-%d", i)})
		require.NoError(t, err)
	}
	for range n {
		m, err := cons.Receive(ctxT(t))
		require.NoError(t, err)
		require.NoError(t, cons.Ack(m))
	}
	r, err := c.CreateReader(pulsar.ReaderOptions{Topic: topic, StartMessageID: pulsar.EarliestMessageID()})
	require.NoError(t, err)
	for range n {
		_, err := r.Next(ctxT(t))
		require.NoError(t, err)
	}
	r.Close()
	prod.Close()
	cons.Close()
}
