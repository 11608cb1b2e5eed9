package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
)

// TestAdminGrowPartitionsSeenByClients grows a partitioned topic over HTTP
// while an official producer and consumer, which poll the partition count
// (PartitionsAutoDiscoveryInterval, AutoDiscoveryPeriod), are attached:
// the producer starts sending to the new partitions and the consumer
// receives from them, with no reconnect of either.
func TestAdminGrowPartitionsSeenByClients(t *testing.T) {
	e := newAdminEnv(t)
	topic := newTopic(t)
	tn := topicName(t, topic)
	if err := e.admin.Topics().Create(tn, 2); err != nil {
		t.Fatal(err)
	}
	c := officialClient(t, e.url)
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "s",
		SubscriptionInitialPosition: official.SubscriptionPositionEarliest, AutoDiscoveryPeriod: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	p, err := c.CreateProducer(official.ProducerOptions{Topic: topic, DisableBatching: true,
		PartitionsAutoDiscoveryInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sendN(t, p, "before", 2)

	if err := e.admin.Topics().Update(tn, 4); err != nil {
		t.Fatal(err)
	}
	// The producer picks the new partitions up on its next poll: send until
	// a message lands on one of them.
	sent := 2
	eventually(t, "producer sends to a new partition", func() error {
		id, err := p.Send(ctxT(t), &official.ProducerMessage{Payload: fmt.Appendf(nil, "after-%d", sent)})
		if err != nil {
			return err
		}
		sent++
		if id.PartitionIdx() < 2 {
			return errorf("message went to partition %d", id.PartitionIdx())
		}
		return nil
	})
	// The consumer, subscribed to the new partitions at the earliest
	// position, receives every message, those of the new ones among them.
	// (No acks: the official consumer's Ack reads its partition list
	// unguarded while discovery writes it, a -race report inside
	// pulsar-client-go v0.19.0.)
	fromNew := 0
	for _, m := range receiveN(t, cons, sent) {
		if strings.HasSuffix(m.Topic(), "-partition-2") || strings.HasSuffix(m.Topic(), "-partition-3") {
			fromNew++
		}
	}
	if fromNew == 0 {
		t.Errorf("the consumer received nothing from partitions 2 and 3")
	}
	stats, err := e.admin.Topics().GetPartitionedStats(tn, true)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Metadata.Partitions != 4 || len(stats.Subscriptions["s"].Consumers) != 4 {
		t.Errorf("partitioned stats: %d partitions, %d consumers of s; want 4 and 4 (one per partition)",
			stats.Metadata.Partitions, len(stats.Subscriptions["s"].Consumers))
	}
}
