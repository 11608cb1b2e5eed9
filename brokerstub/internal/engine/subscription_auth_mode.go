package engine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The namespace policy subscriptionAuthMode (subscription_auth_mode), as
// Pulsar's PulsarAuthorizationProvider.canConsumeAsync applies it: with
// authorization on and the mode Prefix, a role that is neither a super
// user nor an admin of the topic's tenant may only subscribe with a
// subscription name that starts with the role's name (Pulsar checks
// startsWith(role); its message suggests "<role>-xxxx"). Mode None, the
// default, checks nothing. There is no topic-level policy of it.

// msgSubscriptionPrefix is Pulsar's message: a PulsarServerException
// completed exceptionally, which ServerCnx sends as AuthorizationError with
// the CompletionException's message (the cause's class name and message).
const msgSubscriptionPrefix = "org.apache.pulsar.broker.PulsarServerException: Failed to create consumer - " +
	"The subscription name needs to be prefixed by the authentication role, like %s-xxxx for topic: %s"

// SubscriptionAuthModeRefusal returns why role may not use subscription
// sub on topic name under its namespace's subscription auth mode, or "".
func (b *Engine) SubscriptionAuthModeRefusal(role string, name TopicName, sub string) string {
	if !b.AuthzOn() || sub == "" || role == "" {
		return ""
	}
	raw, ok, err := b.Pol().NamespacePolicy(name.Namespace, "subscription_auth_mode")
	if err != nil || !ok {
		return ""
	}
	var mode string
	if json.Unmarshal(raw, &mode) != nil || mode != "Prefix" {
		return ""
	}
	tenant, _, _ := strings.Cut(name.Namespace, "/")
	if b.IsTenantAdmin(role, tenant) || strings.HasPrefix(sub, role) {
		return ""
	}
	return fmt.Sprintf(msgSubscriptionPrefix, role, name.Full)
}
