package admin

import (
	"encoding/json"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// NamespacePolicies is Pulsar's Policies as GET …/namespaces/{tenant}/{ns}
// answers it: Pulsar's defaults for what is unset, and what was set
// (stored as the client sent it, hence json.RawMessage). The defaults are
// always sent; the other policies only once set. A stored key that is not
// one of these names is not answered, as Pulsar's Jackson ignores it.
type NamespacePolicies struct {
	AuthPolicies    authPolicies               `json:"auth_policies"`
	BacklogQuotaMap map[string]json.RawMessage `json:"backlog_quota_map"`

	// Always sent: Pulsar's default unless set.
	Bundles                               json.RawMessage `json:"bundles"`
	ClusterDispatchRate                   json.RawMessage `json:"clusterDispatchRate"`
	TopicDispatchRate                     json.RawMessage `json:"topicDispatchRate"`
	SubscriptionDispatchRate              json.RawMessage `json:"subscriptionDispatchRate"`
	ReplicatorDispatchRate                json.RawMessage `json:"replicatorDispatchRate"`
	ClusterSubscribeRate                  json.RawMessage `json:"clusterSubscribeRate"`
	PublishMaxMessageRate                 json.RawMessage `json:"publishMaxMessageRate"`
	LatencyStatsSampleRate                json.RawMessage `json:"latency_stats_sample_rate"`
	Deleted                               json.RawMessage `json:"deleted"`
	EncryptionRequired                    json.RawMessage `json:"encryption_required"`
	SubscriptionAuthMode                  json.RawMessage `json:"subscription_auth_mode"`
	SchemaCompatibilityStrategy           json.RawMessage `json:"schema_compatibility_strategy"`
	SchemaAutoUpdateCompatibilityStrategy json.RawMessage `json:"schema_auto_update_compatibility_strategy"`
	SchemaValidationEnforced              json.RawMessage `json:"schema_validation_enforced"`
	OffloadThreshold                      json.RawMessage `json:"offload_threshold"`
	Properties                            json.RawMessage `json:"properties"`

	// Sent once set.
	ReplicationClusters                        json.RawMessage `json:"replication_clusters,omitempty"`
	AllowedClusters                            json.RawMessage `json:"allowed_clusters,omitempty"`
	MessageTTLInSeconds                        json.RawMessage `json:"message_ttl_in_seconds,omitempty"`
	RetentionPolicies                          json.RawMessage `json:"retention_policies,omitempty"`
	DeduplicationEnabled                       json.RawMessage `json:"deduplicationEnabled,omitempty"`
	DeduplicationSnapshotIntervalSeconds       json.RawMessage `json:"deduplicationSnapshotIntervalSeconds,omitempty"`
	MaxProducersPerTopic                       json.RawMessage `json:"max_producers_per_topic,omitempty"`
	MaxConsumersPerTopic                       json.RawMessage `json:"max_consumers_per_topic,omitempty"`
	MaxConsumersPerSubscription                json.RawMessage `json:"max_consumers_per_subscription,omitempty"`
	MaxUnackedMessagesPerConsumer              json.RawMessage `json:"max_unacked_messages_per_consumer,omitempty"`
	MaxUnackedMessagesPerSubscription          json.RawMessage `json:"max_unacked_messages_per_subscription,omitempty"`
	MaxSubscriptionsPerTopic                   json.RawMessage `json:"max_subscriptions_per_topic,omitempty"`
	MaxTopicsPerNamespace                      json.RawMessage `json:"max_topics_per_namespace,omitempty"`
	CompactionThreshold                        json.RawMessage `json:"compaction_threshold,omitempty"`
	Persistence                                json.RawMessage `json:"persistence,omitempty"`
	DelayedDeliveryPolicies                    json.RawMessage `json:"delayed_delivery_policies,omitempty"`
	InactiveTopicPolicies                      json.RawMessage `json:"inactive_topic_policies,omitempty"`
	AutoTopicCreationOverride                  json.RawMessage `json:"autoTopicCreationOverride,omitempty"`
	AutoSubscriptionCreationOverride           json.RawMessage `json:"autoSubscriptionCreationOverride,omitempty"`
	IsAllowAutoUpdateSchema                    json.RawMessage `json:"is_allow_auto_update_schema,omitempty"`
	SubscriptionTypesEnabled                   json.RawMessage `json:"subscription_types_enabled,omitempty"`
	SubscriptionExpirationTimeMinutes          json.RawMessage `json:"subscription_expiration_time_minutes,omitempty"`
	AntiAffinityGroup                          json.RawMessage `json:"antiAffinityGroup,omitempty"`
	OffloadDeletionLagMs                       json.RawMessage `json:"offload_deletion_lag_ms,omitempty"`
	OffloadThresholdInSeconds                  json.RawMessage `json:"offload_threshold_in_seconds,omitempty"`
	OffloadPolicies                            json.RawMessage `json:"offload_policies,omitempty"`
	ResourceGroupName                          json.RawMessage `json:"resource_group_name,omitempty"`
	EntryFilters                               json.RawMessage `json:"entryFilters,omitempty"`
	DispatcherPauseOnAckStatePersistentEnabled json.RawMessage `json:"dispatcherPauseOnAckStatePersistentEnabled,omitempty"`
	Migrated                                   json.RawMessage `json:"migrated,omitempty"`
	// BookieAffinityGroup is brokerstub's: Pulsar keeps it in its
	// LocalPolicies (…/persistence/bookieAffinity).
	BookieAffinityGroup json.RawMessage `json:"bookie_affinity_group,omitempty"`
}

// authPolicies is Pulsar's AuthPolicies: the namespace's grants by role,
// its topics' grants, and who may use each subscription.
type authPolicies struct {
	NamespaceAuth         map[string][]string `json:"namespace_auth"`
	DestinationAuth       engine.TopicGrants  `json:"destination_auth"`
	SubscriptionAuthRoles map[string][]string `json:"subscription_auth_roles"`
}

// backlogQuotaJSON is Pulsar's BacklogQuota as the backlog quota map holds
// it: limit is the older name of limitSize.
type backlogQuotaJSON struct {
	Limit     int64  `json:"limit"`
	LimitSize int64  `json:"limitSize"`
	LimitTime int64  `json:"limitTime"`
	Policy    string `json:"policy"`
}

// rawJSON is the JSON text of v, a value that always encodes.
func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a programming error: v is one of our own values
	}
	return b
}

// namespacePoliciesOf builds the answer from the namespace's stored
// policies and permissions.
func (b *Web) namespacePoliciesOf(ns string, pol map[string]json.RawMessage, perms map[string][]string) (*NamespacePolicies, error) {
	empty := json.RawMessage("{}")
	out := &NamespacePolicies{
		AuthPolicies:                          authPolicies{NamespaceAuth: perms, DestinationAuth: b.Eng.TopicGrantsOf(ns), SubscriptionAuthRoles: subRoles(pol)},
		BacklogQuotaMap:                       b.backlogQuotaMap(pol),
		Bundles:                               rawJSON(bundlesData(b.Cfg.DefaultNumberOfNamespaceBundles)),
		ClusterDispatchRate:                   empty,
		TopicDispatchRate:                     empty,
		SubscriptionDispatchRate:              empty,
		ReplicatorDispatchRate:                empty,
		ClusterSubscribeRate:                  empty,
		PublishMaxMessageRate:                 empty,
		LatencyStatsSampleRate:                empty,
		Deleted:                               rawJSON(false),
		EncryptionRequired:                    rawJSON(false),
		SubscriptionAuthMode:                  rawJSON("None"),
		SchemaCompatibilityStrategy:           rawJSON("UNDEFINED"),
		SchemaAutoUpdateCompatibilityStrategy: rawJSON("Full"),
		SchemaValidationEnforced:              rawJSON(false),
		OffloadThreshold:                      rawJSON(-1),
		Properties:                            empty,
	}
	set := make(map[string]json.RawMessage, len(pol))
	for k, v := range pol {
		if k != "backlog_quota_map" && k != engine.SubscriptionRolesField && k != engine.DestinationAuthField {
			set[k] = v
		}
	}
	raw, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	// Each stored policy replaces its default; RawMessage takes any JSON.
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}
