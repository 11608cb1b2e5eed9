package brokerstub

import (
	"encoding/json"
	"slices"
	"strings"

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

// allowTopic reports whether role may do act on the topics of namespace
// ns ("tenant/namespace"), as Pulsar's PulsarAuthorizationProvider: super
// users and tenant admins may do anything; other roles what the
// namespace's permissions grant them (for consume also the subscription's
// roles, when the namespace names any for sub).
func (b *Broker) allowTopic(role, ns string, act authzAction, sub string) bool {
	if !b.authzOn() {
		return true
	}
	tenant, _, _ := strings.Cut(ns, "/")
	if b.isTenantAdmin(role, tenant) {
		return true
	}
	if role == "" {
		return false
	}
	_, perms, err := b.pol().Policies(ns)
	if err != nil {
		return false
	}
	actions := perms[role]
	switch act {
	case actProduce:
		return slices.Contains(actions, "produce")
	case actConsume:
		if !slices.Contains(actions, "consume") {
			return false
		}
		return b.allowSubscription(role, ns, sub)
	}
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
	if c.b.allowTopic(role, name.Namespace, act, sub) {
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
	if c.b.allowTopic(c.role(), name.Namespace, actLookup, "") {
		return ""
	}
	c.log.Info("authorization refused", "role", c.role(), "topic", name.Full, "action", "Lookup")
	return "Client is not authorized to Lookup"
}
