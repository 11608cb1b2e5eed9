package brokerstub

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/internal/proto"
)

// authzAction is what a role asks to do on a topic.
type authzAction int

const (
	actLookup  authzAction = iota // produce or consume granted
	actProduce                    // produce granted
	actConsume                    // consume granted
)

// authzOn reports whether authorization is checked.
func (b *Broker) authzOn() bool { return b.opts.AuthorizationEnabled }

// isSuperUser reports whether role is one of Options.SuperUserRoles.
func (b *Broker) isSuperUser(role string) bool {
	return role != "" && slices.Contains(b.opts.SuperUserRoles, role)
}

// isTenantAdmin reports whether role is a super user or among tenant's
// adminRoles.
func (b *Broker) isTenantAdmin(role, tenant string) bool {
	if b.isSuperUser(role) {
		return true
	}
	t, err := b.pol().Tenant(tenant)
	return err == nil && role != "" && slices.Contains(t.AdminRoles, role)
}

// allowTopic reports whether role may do act on topic name, as Pulsar's
// PulsarAuthorizationProvider: super users and tenant admins may do
// anything; other roles what the namespace's permissions, or the topic's
// own (granted on the topic, or for a partition on its partitioned topic),
// grant them; for consume also the subscription's roles, when the
// namespace names any for sub.
func (b *Broker) allowTopic(role string, name topicName, act authzAction, sub string) bool {
	if !b.authzOn() {
		return true
	}
	tenant, _, _ := strings.Cut(name.Namespace, "/")
	if b.isTenantAdmin(role, tenant) {
		return true
	}
	if role == "" {
		return false
	}
	_, perms, err := b.pol().Policies(name.Namespace)
	if err != nil {
		return false
	}
	actions := append(perms[role], b.topicActions(name, role)...)
	actions = append(actions, b.wildcardActions(perms, role)...)
	switch act {
	case actProduce:
		return slices.Contains(actions, "produce")
	case actConsume:
		if !slices.Contains(actions, "consume") {
			return false
		}
		return b.allowSubscription(role, name.Namespace, sub)
	}
	return slices.Contains(actions, "produce") || slices.Contains(actions, "consume")
}

// allowNamespaceTopics reports whether role may list the topics of
// namespace ns (Pulsar's NamespaceOperation.GET_TOPICS, which
// GET_TOPICS_OF_NAMESPACE, WATCH_TOPIC_LIST and the admin topic lists
// check): super users and tenant admins, and roles the namespace grants
// produce or consume. A grant on one topic does not open the list.
func (b *Broker) allowNamespaceTopics(role, ns string) bool {
	if !b.authzOn() {
		return true
	}
	tenant, _, _ := strings.Cut(ns, "/")
	if b.isTenantAdmin(role, tenant) {
		return true
	}
	actions := b.namespaceActions(role, ns) // authz_admin.go
	return slices.Contains(actions, "produce") || slices.Contains(actions, "consume")
}

// allowSubscription applies the namespace's subscription_auth_roles: a
// subscription named there is open only to its roles.
func (b *Broker) allowSubscription(role, ns, sub string) bool {
	raw, ok, err := b.pol().NamespacePolicy(ns, subscriptionRolesField)
	if err != nil || !ok || sub == "" {
		return true
	}
	var m map[string][]string
	if json.Unmarshal(raw, &m) != nil {
		return true
	}
	roles, named := m[sub]
	return !named || len(roles) == 0 || slices.Contains(roles, role)
}

// authorizeTopic answers a refused LOOKUP, PRODUCER or SUBSCRIBE with
// AuthorizationError and reports false.
func (c *conn) authorizeTopic(rid uint64, name topicName, act authzAction, sub string) bool {
	role := c.role()
	if c.allowedAs(func(r string) bool { return c.b.allowTopic(r, name, act, sub) }) { // proxy_roles.go
		return true
	}
	what := map[authzAction]string{actLookup: "Lookup", actProduce: "Produce", actConsume: "Consume"}[act]
	c.log.Info("authorization refused", "role", role, "topic", name.Full, "action", what)
	c.sendError(rid, proto.ServerError_AuthorizationError, "Client is not authorized to "+what)
	return false
}

// lookupRefusal returns the message of a refused lookup, "" when role may
// look name up.
func (c *conn) lookupRefusal(name topicName) string {
	if c.allowedAs(func(r string) bool { return c.b.allowTopic(r, name, actLookup, "") }) {
		return ""
	}
	c.log.Info("authorization refused", "role", c.role(), "topic", name.Full, "action", "Lookup")
	return "Client is not authorized to Lookup"
}

// authorizeNamespaceTopics answers a refused topic listing of namespace ns
// with AuthorizationError and msg, and reports false.
func (c *conn) authorizeNamespaceTopics(rid uint64, ns, msg string) bool {
	if c.allowedAs(func(r string) bool { return c.b.allowNamespaceTopics(r, ns) }) {
		return true
	}
	c.log.Info("authorization refused", "role", c.role(), "namespace", ns, "action", "GetTopics")
	c.sendError(rid, proto.ServerError_AuthorizationError, msg)
	return false
}

// wildcardActions returns what grants give role through granted roles
// that match it by a wildcard (auth.WildcardActions), with
// Options.AuthorizationAllowWildcardsMatching; nil without it.
func (b *Broker) wildcardActions(grants map[string][]string, role string) []string {
	if !b.opts.AuthorizationAllowWildcardsMatching {
		return nil
	}
	return auth.WildcardActions(grants, role)
}
