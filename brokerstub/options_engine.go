package brokerstub

import "github.com/pulsargo/sdk/brokerstub/internal/engine"

// engineConfig returns the parts of o that the engine reads
// (internal/engine/config.go). o has its defaults applied.
func (o Options) engineConfig() engine.Config {
	return engine.Config{
		Clock:                                   o.Clock,
		ClusterName:                             o.ClusterName,
		MaxMessageSize:                          o.MaxMessageSize,
		DisableBatchIndexAck:                    o.DisableBatchIndexAck,
		LedgerRolloverEntries:                   o.LedgerRolloverEntries,
		CursorFlushInterval:                     o.CursorFlushInterval,
		DisableNonPersistentTopics:              o.DisableNonPersistentTopics,
		DisableAutoTopicCreation:                o.DisableAutoTopicCreation,
		DisableAutoSubscriptionCreation:         o.DisableAutoSubscriptionCreation,
		AutoTopicCreationPartitions:             o.AutoTopicCreationPartitions,
		AutoCreateNamespaces:                    o.AutoCreateNamespaces,
		BrokerDeduplicationEnabled:              o.BrokerDeduplicationEnabled,
		TransactionCoordinatorEnabled:           o.TransactionCoordinatorEnabled,
		DisableDelayedDelivery:                  o.DisableDelayedDelivery,
		DelayedDeliveryStrict:                   o.DelayedDeliveryStrict,
		DelayedDeliveryTickTime:                 o.DelayedDeliveryTickTime,
		DelayedDeliveryMaxDelay:                 o.DelayedDeliveryMaxDelay,
		SchemaValidationEnforced:                o.SchemaValidationEnforced,
		SchemaCompatibilityStrategy:             o.SchemaCompatibilityStrategy,
		DisableSchemaAutoUpdate:                 o.DisableSchemaAutoUpdate,
		Retention:                               o.Retention,
		RetentionCheckInterval:                  o.RetentionCheckInterval,
		MessageTTL:                              o.MessageTTL,
		MessageExpiryCheckInterval:              o.MessageExpiryCheckInterval,
		ActiveConsumerFailoverDelay:             o.ActiveConsumerFailoverDelay,
		ActiveConsumerFailoverConsistentHashing: o.ActiveConsumerFailoverConsistentHashing,
		AuthenticationEnabled:                   o.AuthenticationEnabled,
		AuthorizationEnabled:                    o.AuthorizationEnabled,
		AuthorizationAllowWildcardsMatching:     o.AuthorizationAllowWildcardsMatching,
		SuperUserRoles:                          o.SuperUserRoles,
		ProxyRoles:                              o.ProxyRoles,
		Lifecycle:                               engine.LifecycleConfig(o.Lifecycle),
		Gates:                                   engine.GatesConfig(o.Gates),
		RateLimits:                              engine.RateConfig(o.RateLimits),
		Limits:                                  engine.LimitsConfig(o.Limits),
		KeyShared:                               engine.KeySharedConfig(o.KeyShared),
		Compaction:                              engine.CompactionConfig(o.Compaction),
		BacklogQuota:                            engine.BacklogQuotaConfig(o.BacklogQuota),
		Tenancy:                                 engine.TenancyConfig(o.Tenancy),
	}
}
