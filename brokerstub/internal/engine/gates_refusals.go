package engine

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// Pulsar's refusals of the gates (PersistentTopic, ServerCnx, Producer,
// AbstractTopic, BrokerService).
const (
	msgKeySharedOff        = "Key_Shared subscription is disabled by broker."
	msgSubTypeOff          = "Topic[{%s}] doesn't support %s sub type!"
	msgNoPersistent        = "Broker is unable to load persistent topic"
	msgEncryptionRequired  = "Encryption is required in %s"
	msgMustEncrypt         = "Messages must be encrypted"
	msgSameAddrProducers   = "Topic '%s' reached max same address producers limit"
	msgSameAddrConsumers   = "Topic reached max same address consumers limit"
	MsgClientLibNoAgent    = "Client lib is not compatible to access partitioned metadata: version in user-agent is not present"
	MsgClientLibOldVersion = "Client lib is not compatible to access partitioned metadata: version %s is not supported"
)

var errPersistentOff = &Refusal{proto.ServerError_NotAllowedError, msgNoPersistent}

// refusePersistent returns an error for a persistent topic when the broker
// does not load them (enablePersistentTopics=false).
func (b *Engine) refusePersistent(name TopicName) error {
	if name.Domain == "persistent" && b.cfg.Gates.DisablePersistentTopics {
		return errPersistentOff
	}
	return nil
}

// refuseSubscriptionType returns why a consumer of type typ may not
// subscribe: Key_Shared switched off, or a type that the topic's
// subscriptionTypesEnabled policy, else its namespace's
// subscription_types_enabled, else the broker's list leaves out. Pulsar's
// namespace events topic is exempt.
func (b *Engine) refuseSubscriptionType(name TopicName, typ proto.CommandSubscribe_SubType) (proto.ServerError, string) {
	if typ == proto.CommandSubscribe_Key_Shared && b.cfg.Gates.DisableKeyShared {
		return proto.ServerError_NotAllowedError, msgKeySharedOff
	}
	if strings.HasSuffix(name.Base, "/__change_events") {
		return 0, ""
	}
	enabled := b.subTypesEnabled(name)
	if enabled != nil && !slices.Contains(enabled, typ) {
		return proto.ServerError_NotAllowedError, fmt.Sprintf(msgSubTypeOff, name.Full, typ.String())
	}
	return 0, ""
}

// subTypesEnabled resolves the enabled subscription types of a topic,
// topic → namespace → broker; an empty or unreadable level (Pulsar ignores
// unknown names and treats an empty set as unset) defers to the next. Nil:
// all types.
func (b *Engine) subTypesEnabled(name TopicName) []proto.CommandSubscribe_SubType {
	pol := b.Pol()
	if raw, ok := pol.TopicPolicy(name.Base, "subscriptionTypesEnabled"); ok {
		if t := subTypesOf(raw); t != nil {
			return t
		}
	}
	if raw, ok, _ := pol.NamespacePolicy(name.Namespace, "subscription_types_enabled"); ok {
		if t := subTypesOf(raw); t != nil {
			return t
		}
	}
	if g := b.cfg.Gates.SubscriptionTypesEnabled; g != nil {
		var out []proto.CommandSubscribe_SubType
		for _, s := range g {
			out = append(out, SubTypeByName[strings.TrimSpace(s)])
		}
		return out
	}
	return nil
}

// subTypesOf reads a policy's JSON list of type names, nil when it names
// none.
func subTypesOf(raw json.RawMessage) []proto.CommandSubscribe_SubType {
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		return nil
	}
	var out []proto.CommandSubscribe_SubType
	for _, n := range names {
		if t, ok := SubTypeByName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// encryptionRequired reports whether the namespace's encryption_required
// policy is set for the topic's namespace (system topics exempt).
func (b *Engine) encryptionRequired(name TopicName) bool {
	if exemptFromLimits(name) {
		return false
	}
	raw, ok, _ := b.Pol().NamespacePolicy(name.Namespace, "encryption_required")
	var on bool
	return ok && json.Unmarshal(raw, &on) == nil && on
}

// RefuseUnencryptedProducer returns why a producer that does not encrypt
// may not attach: the namespace's encryption_required policy or the
// broker's EncryptionRequireOnProducer (ServerCnx: MetadataError).
func (b *Engine) RefuseUnencryptedProducer(name TopicName, encrypted bool) (proto.ServerError, string) {
	if encrypted || exemptFromLimits(name) {
		return 0, ""
	}
	if b.cfg.Gates.EncryptionRequireOnProducer || b.encryptionRequired(name) {
		return proto.ServerError_MetadataError, fmt.Sprintf(msgEncryptionRequired, name.Full)
	}
	return 0, ""
}

// clientHost is the client's IP without the port, as Pulsar's
// clientSourceAddress (the whole address when it has no port, as an
// in-memory connection's "pipe").
func clientHost(pr peer) string {
	a := pr.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	return a
}

// refuseSameAddressProducer returns why one more producer from pr may not
// attach: ProducerBusy at MaxSameAddressProducersPerTopic. Topic
// goroutine.
func (t *Topic) refuseSameAddressProducer(pr peer) (proto.ServerError, string) {
	n := t.b.cfg.Gates.MaxSameAddressProducersPerTopic
	if n <= 0 || exemptFromLimits(t.name) {
		return 0, ""
	}
	host, have := clientHost(pr), 0
	for p := range t.producers {
		if clientHost(p.peer) == host {
			have++
		}
	}
	if have >= n {
		return proto.ServerError_ProducerBusy, fmt.Sprintf(msgSameAddrProducers, t.name.Full)
	}
	return 0, ""
}

// refuseSameAddressConsumer returns why one more consumer from pr may not
// attach: ConsumerBusy at MaxSameAddressConsumersPerTopic, all
// subscriptions together. Topic goroutine.
func (t *Topic) refuseSameAddressConsumer(pr peer) (proto.ServerError, string) {
	n := t.b.cfg.Gates.MaxSameAddressConsumersPerTopic
	if n <= 0 || exemptFromLimits(t.name) {
		return 0, ""
	}
	host, have := clientHost(pr), 0
	for _, s := range t.Subs {
		for _, cs := range s.Consumers {
			if clientHost(cs.peer) == host {
				have++
			}
		}
	}
	if have >= n {
		return proto.ServerError_ConsumerBusy, msgSameAddrConsumers
	}
	return 0, ""
}

// redeliveryCount is the redelivery count a MESSAGE carries for pos: 0
// when the tracker is off (DisableRedeliveryTracker).
func (s *Subscription) redeliveryCount(pos ledger.Position) uint32 {
	if s.t.b.cfg.Gates.DisableRedeliveryTracker {
		return 0
	}
	return s.redeliveries[pos]
}

// refuseSubscribe returns why the SUBSCRIBE m may not attach to sub (nil
// when the subscription does not exist yet): its type is not enabled.
// Pulsar checks that after auto subscription creation, so a durable
// subscription that would be refused for not existing is left to
// refuseConsumerLimit. Topic goroutine.
func (t *Topic) refuseSubscribe(sub *Subscription, m *proto.CommandSubscribe) (proto.ServerError, string) {
	if sub == nil && m.GetDurable() && t.np == nil && !t.limits.autoSubscription && !exemptFromLimits(t.name) {
		return 0, ""
	}
	return t.b.refuseSubscriptionType(t.name, m.GetSubType())
}

// The subscription types of SubscriptionTypesEnabled, as Pulsar names them.
var SubTypeByName = map[string]proto.CommandSubscribe_SubType{
	"Exclusive": proto.CommandSubscribe_Exclusive, "Shared": proto.CommandSubscribe_Shared,
	"Failover": proto.CommandSubscribe_Failover, "Key_Shared": proto.CommandSubscribe_Key_Shared,
}
