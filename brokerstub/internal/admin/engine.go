package admin

import (
	"log/slog"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
)

// Engine is what the HTTP side uses of the broker's engine
// (*engine.Engine, which the root checks implements it): exactly the
// methods admin calls, and nothing of its fields. The topics and
// subscriptions it hands out are used through their methods only, on their
// topic's goroutine (Topic.Call) unless a method says otherwise.
type Engine interface {
	// Logger is the broker's logger.
	Logger() *slog.Logger
	// Pol is the broker's admin state: tenants, namespaces, policies.
	Pol() *policy.State
	// PoliciesChanged applies the policies of a namespace (only nil) or of one topic to the loaded topics.
	PoliciesChanged(namespace string, only *engine.TopicName)
	// SchemaRegistry is the broker's schema registry.
	SchemaRegistry() *schema.Registry
	// DeleteSchema deletes the schema of topic, returning the deletion marker's version.
	DeleteSchema(topic string, force bool) (int64, error)
	// MetaKV is the store's metadata key-value space, ok false when the store cannot keep metadata.
	MetaKV() (kv policy.KV, ok bool)
	// TxnCoordinator is the transaction coordinator, nil unless transactions are enabled.
	TxnCoordinator() *txn.Coordinator
	// TxnInBuffer is what topic's transaction buffer knows of id.
	TxnInBuffer(topic string, id txn.ID) txn.InBufferStats

	// AuthEnabled reports whether clients must authenticate.
	AuthEnabled() bool
	// AuthzOn reports whether authorization is checked.
	AuthzOn() bool
	// Authorizer returns the authorization decisions over the broker's options and policy store.
	Authorizer() *auth.Authorizer
	// IsSuperUser reports whether role is one of the super-user roles.
	IsSuperUser(role string) bool
	// IsTenantAdmin reports whether role is a super user or among tenant's admin roles.
	IsTenantAdmin(role, tenant string) bool
	// AllowTopic reports whether role may do act on topic name (sub for consume).
	AllowTopic(role string, name engine.TopicName, act engine.AuthzAction, sub string) bool
	// TopicGrantsOf returns the topic-level permissions of namespace ns.
	TopicGrantsOf(ns string) engine.TopicGrants
	// UpdateTopicGrants applies f to the namespace's topic-level permissions atomically.
	UpdateTopicGrants(ns string, f func(engine.TopicGrants) error) error
	// ForgetTopicGrants drops the topic-level permissions of a deleted topic.
	ForgetTopicGrants(name engine.TopicName) error

	// RefuseNewTenant is 412 when the broker has its most tenants.
	RefuseNewTenant() error
	// RefuseForceDeleteTenant is Pulsar's answer to ?force=true on a tenant when not allowed.
	RefuseForceDeleteTenant(force bool) error
	// RefuseNewNamespace is 412 when the tenant has its most namespaces.
	RefuseNewNamespace(tenant string) error
	// RefuseForceDeleteNamespace is Pulsar's answer to ?force=true on a namespace when not allowed.
	RefuseForceDeleteNamespace(force bool) error
	// RefuseNewTopicREST is 412 when n new topics exceed the namespace's max topics.
	RefuseNewTopicREST(name engine.TopicName, n int) error
	// RefuseTopicPolicies is 405 for a topic-level policy call when they are disabled.
	RefuseTopicPolicies() error
	// NamespaceReady reports whether the topic's namespace exists, creating it when configured to.
	NamespaceReady(name engine.TopicName) bool

	// TopicExists reports whether the topic is loaded, stored, or a partition of a partitioned topic.
	TopicExists(name engine.TopicName) bool
	// TopicNames returns every known topic, sorted.
	TopicNames() []string
	// NamespaceTopics lists the topics of ns of the mode PERSISTENT, NON_PERSISTENT or ALL.
	NamespaceTopics(ns, mode string) []string
	// AutoTopicAllowed reports whether a topic that does not exist is created on first use.
	AutoTopicAllowed(name engine.TopicName) bool
	// GetTopic returns the loaded topic, loading it from the store or, when create is set, creating it.
	GetTopic(name engine.TopicName, create bool) (*engine.Topic, error)
	// TopicForUse is GetTopic with the broker's auto-creation rule and limits.
	TopicForUse(name engine.TopicName) (*engine.Topic, error)
	// LoadedTopic returns the loaded topic named full, or nil.
	LoadedTopic(full string) *engine.Topic
	// LoadedTopics returns the topics loaded now.
	LoadedTopics() []*engine.Topic
	// DeleteTopic deletes a topic's entries and cursors (412 with clients unless force).
	DeleteTopic(name engine.TopicName, force bool) error
	// Unload unloads a topic, closing its clients.
	Unload(topicName string) error
	// NotifyTopicsChanged tells the topic-list watchers that a namespace's topics changed.
	NotifyTopicsChanged()

	// PartitionCount returns the partition count of the partitioned topic full, or 0.
	PartitionCount(full string) int
	// PartitionCountOf is the partition count of name, 0 for a non-partitioned topic or a partition.
	PartitionCountOf(name engine.TopicName) int
	// PartitionedTopics returns the partition count of every partitioned topic by name.
	PartitionedTopics() map[string]int
	// SetPartitions stores the partition count of the partitioned topic full, 0 to forget it.
	SetPartitions(full string, n int) error
	// AutoCreatePartitions applies autoTopicPartitions to a topic that does not exist yet.
	AutoCreatePartitions(name engine.TopicName) (int, error)
	// MaxPartitionsAllowed is the most partitions the admin API creates.
	MaxPartitionsAllowed() int
}
