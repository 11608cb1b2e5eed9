package brokerstub

// Limits are the broker's limits on what clients may attach, create and
// hold (Pulsar's broker.conf keys of the same names), with Pulsar's
// defaults. The namespace and topic policies of the admin API override them
// for their topics, resolved topic → namespace → broker as Pulsar does; a
// policy of 0 means no limit there.
type Limits struct {
	// MaxProducersPerTopic refuses a producer beyond this many on one topic
	// with ProducerBusy (maxProducersPerTopic; policies maxProducers,
	// maxProducersPerTopic). Default 0: no limit.
	MaxProducersPerTopic int
	// MaxConsumersPerTopic refuses a consumer beyond this many on one topic,
	// all its subscriptions together, with ConsumerBusy
	// (maxConsumersPerTopic; policies maxConsumers, maxConsumersPerTopic).
	// Default 0: no limit.
	MaxConsumersPerTopic int
	// MaxConsumersPerSubscription refuses a consumer beyond this many on one
	// Failover, Shared or Key_Shared subscription with ConsumerBusy
	// (maxConsumersPerSubscription). Default 0: no limit.
	MaxConsumersPerSubscription int
	// MaxSubscriptionsPerTopic refuses a new subscription, durable or a
	// reader's, beyond this many on one topic with NotAllowedError
	// (maxSubscriptionsPerTopic). Default 0: no limit.
	MaxSubscriptionsPerTopic int
	// MaxTopicsPerNamespace refuses creating a persistent topic (by a
	// producer or consumer, or the admin API; each partition counts) beyond
	// this many in one namespace, system topics left out
	// (maxTopicsPerNamespace; namespace policy maxTopicsPerNamespace).
	// Default 0: no limit.
	MaxTopicsPerNamespace int
	// MaxNumPartitionsPerPartitionedTopic refuses creating or growing a
	// partitioned topic over the admin API beyond this many partitions with
	// 406 (maxNumPartitionsPerPartitionedTopic). Default 0: the stub's own
	// bound of 1000.
	MaxNumPartitionsPerPartitionedTopic int
	// MaxUnackedMessagesPerConsumer stops dispatching to a consumer of a
	// Shared or Key_Shared subscription once it holds this many messages
	// unacknowledged, until its acks bring them down to half
	// (maxUnackedMessagesPerConsumer; policies maxUnackedMessagesOnConsumer,
	// maxUnackedMessagesPerConsumer). Default 50,000, as Pulsar's; negative:
	// no limit (Pulsar's 0).
	MaxUnackedMessagesPerConsumer int
	// MaxUnackedMessagesPerSubscription stops dispatching on a Shared or
	// Key_Shared subscription once its consumers together hold this many
	// messages unacknowledged, until acks bring them below half
	// (maxUnackedMessagesPerSubscription; policies
	// maxUnackedMessagesOnSubscription, maxUnackedMessagesPerSubscription).
	// Default 200,000, as Pulsar's; negative: no limit (Pulsar's 0).
	MaxUnackedMessagesPerSubscription int
}

func (l Limits) withDefaults() Limits {
	if l.MaxUnackedMessagesPerConsumer == 0 {
		l.MaxUnackedMessagesPerConsumer = 50_000
	}
	if l.MaxUnackedMessagesPerSubscription == 0 {
		l.MaxUnackedMessagesPerSubscription = 200_000
	}
	return l
}

// limits reads the keys of Limits, allowAutoSubscriptionCreation and
// enableNonPersistentTopics (ParseConfig). Pulsar's 0 (no limit) of the
// unacked limits, whose defaults are not 0, is Limits' negative.
func (p *configParser) limits(o *Options) {
	l := &o.Limits
	l.MaxProducersPerTopic = int(p.int("maxProducersPerTopic", 0, 0))
	l.MaxConsumersPerTopic = int(p.int("maxConsumersPerTopic", 0, 0))
	l.MaxConsumersPerSubscription = int(p.int("maxConsumersPerSubscription", 0, 0))
	l.MaxSubscriptionsPerTopic = int(p.int("maxSubscriptionsPerTopic", 0, 0))
	l.MaxTopicsPerNamespace = int(p.int("maxTopicsPerNamespace", 0, 0))
	l.MaxNumPartitionsPerPartitionedTopic = int(p.int("maxNumPartitionsPerPartitionedTopic", 0, 0))
	unacked := func(k string, def int64) int {
		if n := p.int(k, def, 0); n > 0 {
			return int(n)
		}
		return -1
	}
	l.MaxUnackedMessagesPerConsumer = unacked("maxUnackedMessagesPerConsumer", 50_000)
	l.MaxUnackedMessagesPerSubscription = unacked("maxUnackedMessagesPerSubscription", 200_000)
	o.DisableAutoSubscriptionCreation = !p.bool("allowAutoSubscriptionCreation", true)
	o.DisableNonPersistentTopics = !p.bool("enableNonPersistentTopics", true)
}
