package engine

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/pulsargo/sdk/internal/proto"
)

// Pulsar's refusals, code and text (ServerCnx, AbstractTopic,
// PersistentTopic, the dispatchers, BrokerService).
const (
	msgMaxProducers      = "Topic '%s' reached max producers limit"
	msgMaxConsumers      = "Topic reached max consumers limit"
	msgMaxSubConsumers   = "Subscription reached max consumers limit"
	msgMaxSubscriptions  = "Exceed the maximum number of subscriptions of the topic: %s"
	msgNoSubscription    = "Subscription does not exist"
	msgNoNonPersistent   = "Broker is not unable to load non-persistent topic" // sic, as Pulsar says it
	MsgMaxTopicsPerSpace = "Exceed maximum number of topics in namespace."
)

// Refusal is an error of loading a topic that the client is answered with
// as it is: Pulsar's code and text (topicErrorCode).
type Refusal struct {
	Code proto.ServerError
	Text string
}

func (r *Refusal) Error() string { return r.Text }

// The refusals of the limits: Pulsar's NotAllowedException.
var (
	errNonPersistentOff = &Refusal{proto.ServerError_NotAllowedError, msgNoNonPersistent}
	errTooManyTopics    = &Refusal{proto.ServerError_NotAllowedError, MsgMaxTopicsPerSpace}
)

// topicLimits are the limits in effect for one topic, resolved from its
// policies, its namespace's and the broker's (0: none). The topic goroutine
// reads them; they are resolved when the topic loads and whenever a policy
// of it or its namespace changes (applyPolicies).
type topicLimits struct {
	producers, consumers, consumersPerSub, subscriptions int64
	unackedPerConsumer, unackedPerSub                    int64
	autoSubscription                                     bool
	encryptionRequired                                   bool // the namespace's encryption_required (gates.go)
}

// limitsFor resolves the limits of a topic: its topic-level policy (set on
// it or on its partitioned topic), else its namespace's, else the broker's.
func (b *Engine) limitsFor(name TopicName) topicLimits {
	l := b.cfg.Limits
	return topicLimits{
		producers:          b.intPolicy(name, "maxProducers", "max_producers_per_topic", l.MaxProducersPerTopic),
		consumers:          b.intPolicy(name, "maxConsumers", "max_consumers_per_topic", l.MaxConsumersPerTopic),
		consumersPerSub:    b.intPolicy(name, "maxConsumersPerSubscription", "max_consumers_per_subscription", l.MaxConsumersPerSubscription),
		subscriptions:      b.intPolicy(name, "maxSubscriptionsPerTopic", "max_subscriptions_per_topic", l.MaxSubscriptionsPerTopic),
		unackedPerConsumer: b.intPolicy(name, "maxUnackedMessagesOnConsumer", "max_unacked_messages_per_consumer", l.MaxUnackedMessagesPerConsumer),
		unackedPerSub:      b.intPolicy(name, "maxUnackedMessagesOnSubscription", "max_unacked_messages_per_subscription", l.MaxUnackedMessagesPerSubscription),
		autoSubscription:   b.autoSubscriptionCreation(name),
		encryptionRequired: b.encryptionRequired(name),
	}
}

// intPolicy returns the first of the topic policy, the namespace policy and
// def that is set; a value of 0 or less is no limit (0).
func (b *Engine) intPolicy(name TopicName, topicField, nsField string, def int) int64 {
	pol := b.Pol()
	raw, ok := pol.TopicPolicy(name.Base, topicField)
	if !ok || string(raw) == "null" {
		raw, ok, _ = pol.NamespacePolicy(name.Namespace, nsField)
	}
	v := int64(def)
	if ok && string(raw) != "null" {
		var n FlexInt
		if json.Unmarshal(raw, &n) == nil {
			v = int64(n)
		}
	}
	return max(v, 0)
}

// autoSubscriptionCreation reports whether a subscription that does not
// exist is created on subscribe: the topic's autoSubscriptionCreation
// policy, else the namespace's, else the broker's
// (allowAutoSubscriptionCreation).
func (b *Engine) autoSubscriptionCreation(name TopicName) bool {
	var o struct {
		Allow *bool `json:"allowAutoSubscriptionCreation"`
	}
	pol := b.Pol()
	if raw, ok := pol.TopicPolicy(name.Base, "autoSubscriptionCreation"); ok && json.Unmarshal(raw, &o) == nil && o.Allow != nil {
		return *o.Allow
	}
	if raw, ok, _ := pol.NamespacePolicy(name.Namespace, "autoSubscriptionCreationOverride"); ok && json.Unmarshal(raw, &o) == nil && o.Allow != nil {
		return *o.Allow
	}
	return !b.cfg.DisableAutoSubscriptionCreation
}

// refuseProducerLimit returns why one more producer may not attach to the
// topic: ProducerBusy at its max producers. Topic goroutine.
func (t *Topic) refuseProducerLimit() (proto.ServerError, string) {
	if n := t.limits.producers; n > 0 && int64(len(t.producers)) >= n && !exemptFromLimits(t.name) {
		return proto.ServerError_ProducerBusy, fmt.Sprintf(msgMaxProducers, t.name.Full)
	}
	return 0, ""
}

// refuseConsumerLimit returns why a consumer may not subscribe to sub (nil
// when the subscription does not exist yet) as Pulsar checks, in its order:
// the topic's max consumers, auto subscription creation (durable
// subscriptions of persistent topics), its max subscriptions. The max
// consumers of the subscription are checked by addConsumer. Topic
// goroutine.
func (t *Topic) refuseConsumerLimit(sub *Subscription, durable bool) (proto.ServerError, string) {
	if exemptFromLimits(t.name) {
		return 0, ""
	}
	if n := t.limits.consumers; n > 0 {
		var have int64
		for _, s := range t.Subs {
			have += int64(len(s.Consumers))
		}
		if have >= n {
			return proto.ServerError_ConsumerBusy, msgMaxConsumers
		}
	}
	if sub != nil {
		return 0, ""
	}
	if durable && t.np == nil && !t.limits.autoSubscription {
		return proto.ServerError_SubscriptionNotFound, msgNoSubscription
	}
	if n := t.limits.subscriptions; n > 0 && int64(len(t.Subs)) >= n {
		return proto.ServerError_NotAllowedError, fmt.Sprintf(msgMaxSubscriptions, t.name.Full)
	}
	return 0, ""
}

// refuseSubscriptionConsumer returns why one more consumer may not join
// the subscription: ConsumerBusy at its max consumers (Failover, Shared and
// Key_Shared; an Exclusive subscription takes one anyway).
func (s *Subscription) refuseSubscriptionConsumer() (proto.ServerError, string) {
	if n := s.t.limits.consumersPerSub; n > 0 && int64(len(s.Consumers)) >= n && !exemptFromLimits(s.t.name) {
		return proto.ServerError_ConsumerBusy, msgMaxSubConsumers
	}
	return 0, ""
}

// exemptFromLimits reports whether Pulsar leaves the topic out of its
// limits: its system topics (topiclist.go).
func exemptFromLimits(name TopicName) bool { return isSystemTopic(name.Full) }

// refuseNonPersistent returns an error for a non-persistent topic when the
// broker does not load them (enableNonPersistentTopics=false).
func (b *Engine) refuseNonPersistent(name TopicName) error {
	if name.Domain == NonPersistentDomain && b.cfg.DisableNonPersistentTopics {
		return errNonPersistentOff
	}
	return nil
}

// topicsOver reports whether creating n more persistent topics in the
// namespace of name goes beyond its max topics: the namespace's
// maxTopicsPerNamespace policy, else the broker's. System topics are not
// counted, nor limited.
func (b *Engine) topicsOver(name TopicName, n int) bool {
	if name.Domain != "persistent" || exemptFromLimits(name) {
		return false
	}
	limit := int64(b.cfg.Limits.MaxTopicsPerNamespace)
	if raw, ok, _ := b.Pol().NamespacePolicy(name.Namespace, "max_topics_per_namespace"); ok && string(raw) != "null" {
		var v FlexInt
		if json.Unmarshal(raw, &v) == nil {
			limit = int64(v)
		}
	}
	if limit <= 0 {
		return false
	}
	var have int64
	for _, full := range b.NamespaceTopics(name.Namespace, "PERSISTENT") {
		if tn, err := ParseTopic(full); err == nil && !exemptFromLimits(tn) {
			have++
		}
	}
	return have+int64(n) > limit
}

// RefuseNewTopicREST is the admin API's answer to creating n persistent
// topics beyond the namespace's max topics: 412, as Pulsar's.
func (b *Engine) RefuseNewTopicREST(name TopicName, n int) error {
	if b.topicsOver(name, n) {
		return RestErr(http.StatusPreconditionFailed, MsgMaxTopicsPerSpace)
	}
	return nil
}

// MaxPartitionsAllowed is the most partitions the admin API creates: the
// broker's MaxNumPartitionsPerPartitionedTopic when set below the stub's
// own bound.
func (b *Engine) MaxPartitionsAllowed() int {
	if n := b.cfg.Limits.MaxNumPartitionsPerPartitionedTopic; n > 0 && n < maxPartitions {
		return n
	}
	return maxPartitions
}
