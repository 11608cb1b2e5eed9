package engine

// The policy store (namespace and topic policies, tenants, clusters) and the
// names of the policies in it: one store for the admin API and the data path.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// Pol returns the broker's admin state.
func (b *Engine) Pol() *policy.State { return b.policies.Load() }

// loadPolicies (re)reads the admin state from the current store.
func (b *Engine) loadPolicies() error {
	kv, ok := b.st.(policy.KV)
	if !ok {
		return errors.New("brokerstub: store cannot keep admin state")
	}
	st, err := policy.Load(kv, b.cfg.ClusterName, json.RawMessage("{}"))
	if err != nil {
		return fmt.Errorf("brokerstub: %w", err)
	}
	b.policies.Store(st)
	return nil
}

// NamespacePolicyFields maps the admin API's namespace policy resources to
// the field of Pulsar's Policies document that holds them. They are stored
// and returned; brokerstub enforces messageTTL (ttl.go), retention
// (retention.go), delayedDelivery (delayed.go), deduplication (dedup.go),
// the backlog quotas (backlog_quota.go), the max producers, consumers,
// subscriptions, topics and unacked messages and autoSubscriptionCreation
// (limits.go, unacked.go), the publish, dispatch and subscribe rates
// (ratelimit.go); the README lists the others.
var NamespacePolicyFields = map[string]string{
	"messageTTL":                          "message_ttl_in_seconds",
	"retention":                           "retention_policies",
	"deduplication":                       "deduplicationEnabled",
	"maxProducersPerTopic":                "max_producers_per_topic",
	"maxConsumersPerTopic":                "max_consumers_per_topic",
	"maxConsumersPerSubscription":         "max_consumers_per_subscription",
	"maxUnackedMessagesPerConsumer":       "max_unacked_messages_per_consumer",
	"maxUnackedMessagesPerSubscription":   "max_unacked_messages_per_subscription",
	"maxSubscriptionsPerTopic":            "max_subscriptions_per_topic",
	"compactionThreshold":                 "compaction_threshold",
	"offloadThreshold":                    "offload_threshold",
	"persistence":                         "persistence",
	"delayedDelivery":                     "delayed_delivery_policies",
	"inactiveTopicPolicies":               "inactive_topic_policies",
	"autoTopicCreation":                   "autoTopicCreationOverride",
	"autoSubscriptionCreation":            "autoSubscriptionCreationOverride",
	"dispatchRate":                        "topicDispatchRate",
	"subscriptionDispatchRate":            "subscriptionDispatchRate",
	"replicatorDispatchRate":              "replicatorDispatchRate",
	"publishRate":                         "publishMaxMessageRate",
	"subscribeRate":                       "clusterSubscribeRate",
	"schemaCompatibilityStrategy":         "schema_compatibility_strategy",
	"schemaValidationEnforced":            "schema_validation_enforced",
	"isAllowAutoUpdateSchema":             "is_allow_auto_update_schema",
	"encryptionRequired":                  "encryption_required",
	"subscriptionTypesEnabled":            "subscription_types_enabled",
	"subscriptionAuthMode":                "subscription_auth_mode",
	"antiAffinity":                        "antiAffinityGroup",
	"offloadDeletionLagMs":                "offload_deletion_lag_ms",
	"offloadThresholdInSeconds":           "offload_threshold_in_seconds",
	"offloadPolicies":                     "offload_policies",
	"maxTopicsPerNamespace":               "max_topics_per_namespace",
	"subscriptionExpirationTime":          "subscription_expiration_time_minutes",
	"deduplicationSnapshotInterval":       "deduplicationSnapshotIntervalSeconds",
	"properties":                          "properties",
	"resourcegroup":                       "resource_group_name",
	"entryFilters":                        "entryFilters",
	"dispatcherPauseOnAckStatePersistent": "dispatcherPauseOnAckStatePersistentEnabled",
	"replication":                         "replication_clusters",
	"allowedClusters":                     "allowed_clusters",
}

// TopicPolicyNames are the topic-level policies the admin API stores.
var TopicPolicyNames = map[string]bool{
	"messageTTL": true, "retention": true, "deduplicationEnabled": true, "maxProducers": true,
	"maxConsumers": true, "maxConsumersPerSubscription": true, "maxUnackedMessagesOnConsumer": true,
	"maxUnackedMessagesOnSubscription": true, "compactionThreshold": true, "persistence": true,
	"delayedDelivery": true, "inactiveTopicPolicies": true, "dispatchRate": true,
	"subscriptionDispatchRate": true, "replicatorDispatchRate": true, "publishRate": true,
	"subscribeRate": true, "backlogQuota": true, "backlogQuotaMap": true, "maxMessageSize": true,
	"maxSubscriptionsPerTopic": true, "deduplicationSnapshotInterval": true, "subscriptionTypesEnabled": true,
	"schemaCompatibilityStrategy": true, "offloadPolicies": true, "autoSubscriptionCreation": true,
	"schemaValidationEnforced": true, "entryFilters": true, "dispatcherPauseOnAckStatePersistent": true,
	"replication": true, "shadowTopics": true, "properties": true, "subscriptionExpirationTime": true,
}

// TopicToNamespacePolicy maps topic-level policies to the namespace policy
// field that applies when the topic sets none.
var TopicToNamespacePolicy = map[string]string{
	"messageTTL": "message_ttl_in_seconds", "retention": "retention_policies",
	"schemaCompatibilityStrategy": "schema_compatibility_strategy", "deduplicationEnabled": "deduplicationEnabled",
	"maxProducers": "max_producers_per_topic", "maxConsumers": "max_consumers_per_topic",
	"maxConsumersPerSubscription": "max_consumers_per_subscription", "compactionThreshold": "compaction_threshold",
	"persistence": "persistence", "delayedDelivery": "delayed_delivery_policies",
	"inactiveTopicPolicies": "inactive_topic_policies", "maxUnackedMessagesOnConsumer": "max_unacked_messages_per_consumer",
	"maxUnackedMessagesOnSubscription": "max_unacked_messages_per_subscription",
	"deduplicationSnapshotInterval":    "deduplicationSnapshotIntervalSeconds", "schemaValidationEnforced": "schema_validation_enforced",
	"autoSubscriptionCreation": "autoSubscriptionCreationOverride", "offloadPolicies": "offload_policies",
	"subscriptionExpirationTime": "subscription_expiration_time_minutes",
}

// SubscriptionRolesField holds a namespace's subscription permissions
// (Pulsar's auth_policies.subscription_auth_roles: subscription -> roles).
const SubscriptionRolesField = "subscription_auth_roles"

// FlexInt is an integer that Pulsar's Jackson also accepts as a JSON
// string ("10240"), as some clients send it.
type FlexInt int64

func (f *FlexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not an integer: %s", b)
	}
	*f = FlexInt(v)
	return nil
}
