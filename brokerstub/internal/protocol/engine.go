package protocol

import (
	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/schema"
	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Engine is what the protocol asks of the broker's data path
// (internal/engine's *Engine, set by the root): topics to attach to, the
// policies and authorization that decide on a request, schemas and the
// transaction coordinator. The topics it returns are used through their
// methods only.
type Engine interface {
	// TopicForUse loads or creates the topic a producer or consumer attaches to.
	TopicForUse(name engine.TopicName) (*engine.Topic, error)
	// TopicExists reports whether the topic is loaded, stored or a partition of a partitioned topic.
	TopicExists(name engine.TopicName) bool
	// PartitionCount is the partition count of topic full, 0 when it is not partitioned.
	PartitionCount(full string) int
	// AutoTopicAllowed reports whether a missing topic of name is created on first use.
	AutoTopicAllowed(name engine.TopicName) bool
	// AutoCreatePartitions creates a missing topic partitioned by autoTopicPartitions, returning its partition count.
	AutoCreatePartitions(name engine.TopicName) (int, error)
	// NamespaceReady reports whether the topic's namespace exists (creating it when namespaces are auto-created).
	NamespaceReady(name engine.TopicName) bool
	// ListNamespaceTopics lists namespace ns's topics of the given domains, sorted.
	ListNamespaceTopics(ns string, persistent, nonPersistent bool) []string
	// RefuseTopicsOfMissingNamespace returns why GET_TOPICS_OF_NAMESPACE in mode is refused, or "".
	RefuseTopicsOfMissingNamespace(ns string, mode proto.CommandGetTopicsOfNamespace_Mode) string
	// RefuseUnencryptedProducer returns why a producer that does (not) encrypt may not attach, or "".
	RefuseUnencryptedProducer(name engine.TopicName, encrypted bool) (proto.ServerError, string)
	// SubscriptionAuthModeRefusal returns why role may not use subscription sub on the topic, or "".
	SubscriptionAuthModeRefusal(role string, name engine.TopicName, sub string) string
	// AuthEnabled reports whether clients must authenticate.
	AuthEnabled() bool
	// AuthzOn reports whether authorization is checked.
	AuthzOn() bool
	// Authorizer is the broker's authorization decisions.
	Authorizer() *auth.Authorizer
	// AllowTopic reports whether role may do act on the topic (subscription sub when consuming).
	AllowTopic(role string, name engine.TopicName, act engine.AuthzAction, sub string) bool
	// AllowNamespaceTopics reports whether role may list namespace ns's topics.
	AllowNamespaceTopics(role, ns string) bool
	// AddProducerSchema registers or finds a producer's schema and returns its version bytes.
	AddProducerSchema(name engine.TopicName, s *proto.Schema) ([]byte, error)
	// Schema is version v (-1: the latest) of the schema stored under id, or schema.ErrNotFound.
	Schema(id string, v int64) (schema.Version, error)
	// TxnEnabled reports whether the transaction coordinator runs.
	TxnEnabled() bool
	// CoordinatorFor returns transaction coordinator tcID, or the error Pulsar answers.
	CoordinatorFor(tcID uint64) (*txn.Coordinator, error)
}
