package brokerstub

// The Broker methods a test calls to shape and inspect topics; the
// engine (engine.go) does the work.

// Delayed returns the positions a Shared or Key_Shared subscription holds
// for delayed delivery — read, with a deliver_at_time not reached yet — in
// position order. A message that fell due and waits for a consumer is not
// among them (it is in the replay queue).
func (b *Broker) Delayed(topic, subscription string) ([]Position, error) {
	ps, err := b.eng.DelayedPositionsOf(topic, subscription)
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	out := make([]Position, len(ps))
	for i, p := range ps {
		out[i] = pos(p)
	}
	return out, nil
}

// CreateNamespace creates the namespace "tenant/ns" and, when it does not
// exist, its tenant (allowed in the broker's cluster), as the admin API's
// PUT /admin/v2/tenants/{tenant} and PUT /admin/v2/namespaces/{tenant}/{ns}
// do; a namespace that exists is left as it is. At start the broker has
// "public/default" and "pulsar/system" (see Options.ClusterName).
func (b *Broker) CreateNamespace(namespace string) error {
	return b.eng.CreateNamespace(namespace)
}

// CreatePartitionedTopic creates a topic with n partitions, named
// "<topic>-partition-0" to "-partition-<n-1>", as Pulsar's admin API does.
// Clients that look the topic up see n partitions. Creating it again with
// the same n is a no-op.
func (b *Broker) CreatePartitionedTopic(topic string, n int) error {
	return b.eng.CreatePartitionedTopic(topic, n)
}

// Unload closes the topic's producers and consumers the way a broker does
// when a topic moves (CloseProducer / CloseConsumer, so clients reconnect),
// flushes its cursors and drops it from memory; the next use loads it again
// from the store, in a new ledger. Unloading a topic that is not loaded is a
// no-op.
func (b *Broker) Unload(topicName string) error {
	return b.eng.Unload(topicName)
}
