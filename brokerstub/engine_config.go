package brokerstub

import (
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/clock"
)

// engineConfig is what the data path is configured with: the parts of
// Options it reads, with defaults applied, made once by
// Options.engineConfig (options_engine.go) when the broker starts. Each
// field is the Options field of the same name, documented there; the
// groups mirror Options' groups field for field, so that the root
// converts them and the compiler keeps the two in step.
type engineConfig struct {
	Clock       clock.Clock
	ClusterName string

	MaxMessageSize        int
	DisableBatchIndexAck  bool
	LedgerRolloverEntries int
	CursorFlushInterval   time.Duration

	DisableNonPersistentTopics      bool
	DisableAutoTopicCreation        bool
	DisableAutoSubscriptionCreation bool
	AutoTopicCreationPartitions     int
	AutoCreateNamespaces            bool
	BrokerDeduplicationEnabled      bool
	TransactionCoordinatorEnabled   bool

	DisableDelayedDelivery  bool
	DelayedDeliveryStrict   bool
	DelayedDeliveryTickTime time.Duration
	DelayedDeliveryMaxDelay time.Duration

	SchemaValidationEnforced    bool
	SchemaCompatibilityStrategy string
	DisableSchemaAutoUpdate     bool

	Retention                  ledger.Retention
	RetentionCheckInterval     time.Duration
	MessageTTL                 time.Duration
	MessageExpiryCheckInterval time.Duration

	ActiveConsumerFailoverDelay             time.Duration
	ActiveConsumerFailoverConsistentHashing bool

	AuthenticationEnabled               bool
	AuthorizationEnabled                bool
	AuthorizationAllowWildcardsMatching bool
	SuperUserRoles                      []string
	ProxyRoles                          []string

	Lifecycle    lifecycleConfig
	Gates        gatesConfig
	RateLimits   rateConfig
	Limits       limitsConfig
	KeyShared    keySharedConfig
	Compaction   compactionConfig
	BacklogQuota backlogQuotaConfig
	Tenancy      tenancyConfig
}

// lifecycleConfig is Lifecycle (lifecycle.go).
type lifecycleConfig struct {
	DisableInactiveTopicDeletion           bool
	InactiveTopicCheckInterval             time.Duration
	InactiveTopicMaxDuration               time.Duration
	InactiveTopicDeleteMode                string
	DeleteInactivePartitionedTopicMetadata bool

	SubscriptionExpiration          time.Duration
	SubscriptionExpiryCheckInterval time.Duration

	DedupProducerInactivityTimeout time.Duration

	LedgerMaxRolloverTime      time.Duration
	LedgerMinRolloverTime      time.Duration
	LedgerMaxSize              int64
	LedgerInactiveRolloverTime time.Duration
}

// gatesConfig is Gates (gates.go).
type gatesConfig struct {
	SubscriptionTypesEnabled                         []string
	DisableKeyShared                                 bool
	DisablePersistentTopics                          bool
	EncryptionRequireOnProducer                      bool
	MaxSameAddressProducersPerTopic                  int
	MaxSameAddressConsumersPerTopic                  int
	DisableRedeliveryTracker                         bool
	MaxUnackedMessagesPerBroker                      int
	MaxUnackedMessagesPerSubscriptionOnBrokerBlocked float64
	DispatcherMaxRoundRobinBatchSize                 int
	AggregatePublisherStatsByProducerName            bool
	ClientLibraryVersionCheckEnabled                 bool
	MaxActiveTransactionsPerCoordinator              int
	MaxConcurrentNonPersistentMessagePerConnection   int
}

// rateConfig is RateLimits (ratelimit.go).
type rateConfig struct {
	BrokerPublishMsgRate, BrokerPublishByteRate               int64
	TopicPublishMsgRate, TopicPublishByteRate                 int64
	BrokerDispatchMsgRate, BrokerDispatchByteRate             int64
	TopicDispatchMsgRate, TopicDispatchByteRate               int64
	SubscriptionDispatchMsgRate, SubscriptionDispatchByteRate int64
	DispatchRelativeToPublishRate                             bool
	DispatchCountsEntries                                     bool
	DispatchSparesCaughtUp                                    bool
	SubscribeRatePerConsumer                                  int64
	SubscribeRatePeriod                                       time.Duration
}

// limitsConfig is Limits (limits.go).
type limitsConfig struct {
	MaxProducersPerTopic                int
	MaxConsumersPerTopic                int
	MaxConsumersPerSubscription         int
	MaxSubscriptionsPerTopic            int
	MaxTopicsPerNamespace               int
	MaxNumPartitionsPerPartitionedTopic int
	MaxUnackedMessagesPerConsumer       int
	MaxUnackedMessagesPerSubscription   int
}

// keySharedConfig is KeySharedOptions (keyshared_options.go).
type keySharedConfig struct {
	HashRangeAutoSplit       bool
	ReplicaPoints            int
	LookAheadPerConsumer     int
	LookAheadPerSubscription int
}

// compactionConfig is CompactionOptions (options_admin.go).
type compactionConfig struct {
	ThresholdBytes  int64
	MonitorInterval time.Duration
}

// backlogQuotaConfig is BacklogQuota (options_admin.go).
type backlogQuotaConfig struct {
	LimitBytes    int64
	LimitSeconds  int64
	Policy        string
	CheckInterval time.Duration
}

// tenancyConfig is Tenancy (tenant_limits.go).
type tenancyConfig struct {
	ForceDeleteNamespaceAllowed     bool
	ForceDeleteTenantAllowed        bool
	MaxTenants                      int
	MaxNamespacesPerTenant          int
	DefaultNumberOfNamespaceBundles int
	DisableTopicLevelPolicies       bool
}
