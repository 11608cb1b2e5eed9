package engine

import (
	"net/http"

	"github.com/pulsargo/sdk/internal/proto"
)

// Limits on the paths that create topics and subscriptions outside
// PRODUCER and SUBSCRIBE: the partitioned topic auto-created by a lookup
// of its metadata, the admin API's subscription creation, and the topic
// list of a namespace that does not exist.

// ErrTooManyPartitionedTopics refuses a partitioned topic auto-created by
// a partitioned-metadata lookup beyond the namespace's max topics (its
// partitions count, as BrokerService.checkMaxTopicsPerNamespace counts
// them); the binary protocol answers it with MetadataError, as Pulsar's
// ServerCnx maps the 412 RestException of the check (a status below 500),
// with the text of the exception as it arrives there, wrapped.
var ErrTooManyPartitionedTopics = &Refusal{proto.ServerError_MetadataError, "org.apache.pulsar.broker.web.RestException: " + MsgMaxTopicsPerSpace}

// refuseAutoPartitioned returns errTooManyPartitionedTopics when creating
// the n partitions of name goes beyond its namespace's max topics.
func (b *Engine) refuseAutoPartitioned(name TopicName, n int) error {
	if b.topicsOver(name, n) {
		return ErrTooManyPartitionedTopics
	}
	return nil
}

// refuseSubscriptionREST is the admin API's answer to creating one more
// subscription on t at its max subscriptions: PersistentTopic's
// getDurableSubscription checks checkMaxSubscriptionsPerTopicExceed for
// the admin API's createSubscription as for SUBSCRIBE, and its
// NotAllowedException is 409 with its text
// (PulsarWebResource.resumeAsyncResponseExceptionally). Topic goroutine.
func (t *Topic) refuseSubscriptionREST() error {
	if n := t.limits.subscriptions; n > 0 && int64(len(t.Subs)) >= n && !exemptFromLimits(t.name) {
		return RestErr(http.StatusConflict, msgMaxSubscriptions, t.name.Full)
	}
	return nil
}

// RefuseTopicsOfMissingNamespace is the answer to GET_TOPICS_OF_NAMESPACE
// for a namespace that does not exist: Pulsar lists the persistent topics
// from the metadata store, where a missing namespace has none (an empty
// list), but looks the namespace's policies up for the non-persistent ones
// (NamespaceService.getListOfNonPersistentTopics, so also for mode ALL),
// and answers that with MetadataError "Namespace not found". It returns ""
// when the request is answered with a list.
func (b *Engine) RefuseTopicsOfMissingNamespace(ns string, mode proto.CommandGetTopicsOfNamespace_Mode) string {
	if mode == proto.CommandGetTopicsOfNamespace_PERSISTENT || b.Pol().HasNamespace(ns) {
		return ""
	}
	return NsNotFoundLookup
}
