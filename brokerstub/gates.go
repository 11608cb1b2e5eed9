package brokerstub

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// Gates are the broker's switches on what a client may attach and how
// messages flow that are not counts per topic (see Limits): enabled
// subscription types, persistent topics on or off, required encryption,
// clients per address, the redelivery count, Shared dispatch batches, the
// broker-wide unacknowledged-message limit, publisher stats of partitioned
// topics, the client-version check, active transactions and non-persistent
// messages in flight. Each field is Pulsar's broker.conf key of the same
// name, with Pulsar's default; refusals carry Pulsar's error code and text.
type Gates struct {
	// SubscriptionTypesEnabled lists the subscription types a consumer may
	// use (subscriptionTypesEnabled): "Exclusive", "Shared", "Failover",
	// "Key_Shared". Another type is refused with NotAllowedError "Topic[{t}]
	// doesn't support <type> sub type!". A namespace's
	// subscription_types_enabled policy and a topic's subscriptionTypesEnabled
	// policy override it. Default nil: all four.
	SubscriptionTypesEnabled []string
	// DisableKeyShared refuses Key_Shared subscriptions whatever the
	// policies say, with NotAllowedError "Key_Shared subscription is disabled
	// by broker." (subscriptionKeySharedEnable=false). Default false.
	DisableKeyShared bool
	// DisablePersistentTopics refuses producers and consumers of persistent
	// topics with NotAllowedError "Broker is unable to load persistent
	// topic" (enablePersistentTopics=false). Default false.
	DisablePersistentTopics bool
	// EncryptionRequireOnProducer refuses a producer that does not declare
	// encryption with MetadataError "Encryption is required in <topic>"
	// (encryptionRequireOnProducer); a namespace's encryption_required
	// policy does the same for its topics and also refuses each unencrypted
	// message with MetadataError "Messages must be encrypted". System topics
	// are exempt. Default false.
	EncryptionRequireOnProducer bool
	// MaxSameAddressProducersPerTopic refuses a producer beyond this many
	// from one client IP on one topic with ProducerBusy "Topic '<t>' reached
	// max same address producers limit" (maxSameAddressProducersPerTopic).
	// Default 0: no limit.
	MaxSameAddressProducersPerTopic int
	// MaxSameAddressConsumersPerTopic refuses a consumer beyond this many
	// from one client IP on one topic with ConsumerBusy "Topic reached max
	// same address consumers limit" (maxSameAddressConsumersPerTopic).
	// Default 0: no limit.
	MaxSameAddressConsumersPerTopic int
	// DisableRedeliveryTracker sends every message with redelivery count 0
	// (subscriptionRedeliveryTrackerEnabled=false), so that consumers' dead
	// letter policies never trigger. Default false: counted.
	DisableRedeliveryTracker bool
	// MaxUnackedMessagesPerBroker is the broker-wide limit of messages
	// delivered on Shared and Key_Shared subscriptions and not acknowledged
	// (maxUnackedMessagesPerBroker). As Pulsar, a check every 30 s (the
	// first 10 min after start) finds the broker over it and stops
	// dispatching on the subscriptions holding more than
	// MaxUnackedMessagesPerSubscriptionOnBrokerBlocked percent of it, until
	// the broker is below half the limit or the subscription below half its
	// share. Default 0: no limit.
	MaxUnackedMessagesPerBroker int
	// MaxUnackedMessagesPerSubscriptionOnBrokerBlocked is the share of
	// MaxUnackedMessagesPerBroker beyond which a subscription is blocked
	// while the broker is, in percent as Pulsar computes it (limit × value
	// / 100, so Pulsar's default 0.16 is 0.16 %). Default 0.16; negative:
	// Pulsar's 0, which turns the broker-wide limit off.
	MaxUnackedMessagesPerSubscriptionOnBrokerBlocked float64
	// DispatcherMaxRoundRobinBatchSize is how many entries in a row a
	// consumer of a Shared subscription gets from a backlog before the next
	// consumer's turn (dispatcherMaxRoundRobinBatchSize). Default 20.
	DispatcherMaxRoundRobinBatchSize int
	// AggregatePublisherStatsByProducerName merges the publishers of a
	// partitioned topic's stats by producer name instead of by their index
	// in each partition's list, for clients that announce
	// supports_partial_producer (aggregatePublisherStatsByProducerName).
	// Default false.
	AggregatePublisherStatsByProducerName bool
	// ClientLibraryVersionCheckEnabled refuses the admin API's partitioned
	// metadata (GET .../partitions) to a request without a User-Agent, or
	// from a C++ client older than 1.21, with 405
	// (clientLibraryVersionCheckEnabled). Default false.
	ClientLibraryVersionCheckEnabled bool
	// MaxActiveTransactionsPerCoordinator is how many transactions may be
	// open at once (maxActiveTransactionsPerCoordinator); as Pulsar, a
	// NEW_TXN beyond it gets no answer and the client's request times out.
	// Default 0: no limit.
	MaxActiveTransactionsPerCoordinator int
	// MaxConcurrentNonPersistentMessagePerConnection is how many SENDs to
	// non-persistent topics one connection may have in flight; as Pulsar, a
	// SEND arriving while more than this many are is dropped and answered
	// with a receipt of message id -1:-1, and counted in the publisher's
	// msgDropRate (maxConcurrentNonPersistentMessagePerConnection).
	// Default 1000; negative: Pulsar's 0 (one in flight).
	MaxConcurrentNonPersistentMessagePerConnection int
}

func (g Gates) withDefaults() Gates {
	if g.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked == 0 {
		g.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked = 0.16
	}
	if g.DispatcherMaxRoundRobinBatchSize <= 0 {
		g.DispatcherMaxRoundRobinBatchSize = 20
	}
	if g.MaxConcurrentNonPersistentMessagePerConnection == 0 {
		g.MaxConcurrentNonPersistentMessagePerConnection = 1000
	}
	return g
}

// check refuses values that name nothing: an unknown subscription type.
func (g Gates) check() error {
	for _, s := range g.SubscriptionTypesEnabled {
		if _, ok := engine.SubTypeByName[strings.TrimSpace(s)]; !ok {
			return fmt.Errorf("brokerstub: Gates.SubscriptionTypesEnabled: unknown subscription type %q (want Exclusive, Shared, Failover or Key_Shared)", s)
		}
	}
	return nil
}

// gates reads the keys of Gates (ParseConfig). schemaRegistryCompatibilityCheckers
// is read here too: brokerstub's checks are Pulsar's default checkers', so
// only that set is accepted.
func (p *configParser) gates(o *Options) {
	g := &o.Gates
	if v, ok := p.take("subscriptionTypesEnabled"); ok {
		g.SubscriptionTypesEnabled = nil
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(s)
			if _, known := engine.SubTypeByName[s]; !known {
				p.fail("subscriptionTypesEnabled", v, "want a comma-separated list of Exclusive, Shared, Failover, Key_Shared")
				break
			}
			g.SubscriptionTypesEnabled = append(g.SubscriptionTypesEnabled, s)
		}
	}
	g.DisableKeyShared = !p.bool("subscriptionKeySharedEnable", true)
	g.DisablePersistentTopics = !p.bool("enablePersistentTopics", true)
	g.EncryptionRequireOnProducer = p.bool("encryptionRequireOnProducer", false)
	g.MaxSameAddressProducersPerTopic = int(p.int("maxSameAddressProducersPerTopic", 0, 0))
	g.MaxSameAddressConsumersPerTopic = int(p.int("maxSameAddressConsumersPerTopic", 0, 0))
	g.DisableRedeliveryTracker = !p.bool("subscriptionRedeliveryTrackerEnabled", true)
	g.MaxUnackedMessagesPerBroker = int(p.int("maxUnackedMessagesPerBroker", 0, 0))
	if v, ok := p.take("maxUnackedMessagesPerSubscriptionOnBrokerBlocked"); ok {
		f, err := strconv.ParseFloat(v, 64)
		switch {
		case err != nil || f < 0:
			p.fail("maxUnackedMessagesPerSubscriptionOnBrokerBlocked", v, "want a number >= 0")
		case f == 0:
			g.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked = -1
		default:
			g.MaxUnackedMessagesPerSubscriptionOnBrokerBlocked = f
		}
	}
	if n := p.int("dispatcherMaxRoundRobinBatchSize", 20, 0); n > 0 {
		g.DispatcherMaxRoundRobinBatchSize = int(n)
	} else {
		g.DispatcherMaxRoundRobinBatchSize = 1 // Pulsar's 0 still sends one entry
	}
	g.AggregatePublisherStatsByProducerName = p.bool("aggregatePublisherStatsByProducerName", false)
	g.ClientLibraryVersionCheckEnabled = p.bool("clientLibraryVersionCheckEnabled", false)
	g.MaxActiveTransactionsPerCoordinator = int(p.int("maxActiveTransactionsPerCoordinator", 0, 0))
	if n := p.int("maxConcurrentNonPersistentMessagePerConnection", 1000, 0); n > 0 {
		g.MaxConcurrentNonPersistentMessagePerConnection = int(n)
	} else {
		g.MaxConcurrentNonPersistentMessagePerConnection = -1
	}
	if v, ok := p.take("schemaRegistryCompatibilityCheckers"); ok {
		if err := engine.CheckSchemaCheckers(v); err != nil {
			p.failErr("schemaRegistryCompatibilityCheckers", v, err)
		}
	}
}
