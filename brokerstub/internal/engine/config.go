package engine

import (
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/clock"
)

// Config is what an Engine is configured with: the parts of
// brokerstub.Options it reads, with defaults applied, made once by the
// root when the broker starts (options_engine.go). Each field is the
// Options field of the same name, documented there; the groups mirror
// Options' groups field for field, so that the root converts them and the
// compiler keeps the two in step.
type Config struct {
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

	Lifecycle    LifecycleConfig
	Gates        GatesConfig
	RateLimits   RateConfig
	Limits       LimitsConfig
	KeyShared    KeySharedConfig
	Compaction   CompactionConfig
	BacklogQuota BacklogQuotaConfig
	Tenancy      TenancyConfig
}

// LifecycleConfig is brokerstub.Lifecycle (lifecycle.go).
type LifecycleConfig struct {
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

// GatesConfig is brokerstub.Gates (gates.go).
type GatesConfig struct {
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

// RateConfig is brokerstub.RateLimits (ratelimit.go).
type RateConfig struct {
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

// LimitsConfig is brokerstub.Limits (limits.go).
type LimitsConfig struct {
	MaxProducersPerTopic                int
	MaxConsumersPerTopic                int
	MaxConsumersPerSubscription         int
	MaxSubscriptionsPerTopic            int
	MaxTopicsPerNamespace               int
	MaxNumPartitionsPerPartitionedTopic int
	MaxUnackedMessagesPerConsumer       int
	MaxUnackedMessagesPerSubscription   int
}

// KeySharedConfig is brokerstub.KeySharedOptions (keyshared_options.go).
type KeySharedConfig struct {
	HashRangeAutoSplit       bool
	ReplicaPoints            int
	LookAheadPerConsumer     int
	LookAheadPerSubscription int
}

// CompactionConfig is brokerstub.CompactionOptions (options_admin.go).
type CompactionConfig struct {
	ThresholdBytes  int64
	MonitorInterval time.Duration
}

// BacklogQuotaConfig is brokerstub.BacklogQuota (options_admin.go).
type BacklogQuotaConfig struct {
	LimitBytes    int64
	LimitSeconds  int64
	Policy        string
	CheckInterval time.Duration
}

// TenancyConfig is brokerstub.Tenancy (tenant_limits.go).
type TenancyConfig struct {
	ForceDeleteNamespaceAllowed     bool
	ForceDeleteTenantAllowed        bool
	MaxTenants                      int
	MaxNamespacesPerTenant          int
	DefaultNumberOfNamespaceBundles int
	DisableTopicLevelPolicies       bool
}
