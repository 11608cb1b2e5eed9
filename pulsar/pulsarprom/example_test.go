package pulsarprom_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar"
	"github.com/pulsargo/sdk/pulsar/pulsarprom"
)

// The official client's MetricsRegisterer: prometheus.DefaultRegisterer
// becomes pulsarprom.Registerer(prometheus.DefaultRegisterer); here a
// registry of its own, gathered after a producer was created.
func ExampleRegisterer() {
	b, err := brokerstub.Start(brokerstub.Options{NoListener: true})
	if err != nil {
		panic(err)
	}
	defer b.Close()
	reg := prometheus.NewRegistry()
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: b.URL(), Dialer: b.Dial,
		MetricsRegisterer: pulsarprom.Registerer(reg)})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: "orders"})
	if err != nil {
		panic(err)
	}
	producer.Close()
	fams, _ := reg.Gather()
	for _, f := range fams {
		if f.GetName() == "pulsar_client_producers_opened" {
			m := f.GetMetric()[0]
			fmt.Print(f.GetName())
			for _, l := range m.GetLabel() {
				fmt.Printf(" %s=%q", l.GetName(), l.GetValue())
			}
			fmt.Printf(" %v\n", m.GetCounter().GetValue())
		}
	}
	// Output: pulsar_client_producers_opened client="go" pulsar_namespace="public/default" pulsar_tenant="public" 1
}
