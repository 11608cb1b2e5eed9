package auth

import (
	"slices"
	"strings"
)

// Action is what a role asks to do on a topic.
type Action int

const (
	ActLookup  Action = iota // produce or consume granted
	ActProduce               // produce granted
	ActConsume               // consume granted
)

// Grants is the permission data an Authorizer decides from: brokerstub
// reads it from its policy store, where the admin API writes it.
type Grants interface {
	// TenantAdmins returns the tenant's adminRoles; ok is false when the
	// tenant does not exist.
	TenantAdmins(tenant string) (roles []string, ok bool)
	// NamespacePermissions returns the namespace's grants (role ->
	// actions); ok is false when the namespace does not exist.
	NamespacePermissions(ns string) (perms map[string][]string, ok bool)
	// TopicPermissions returns the namespace's topic-level grants (full
	// topic name -> role -> actions, Pulsar's destination_auth), empty
	// when it has none.
	TopicPermissions(ns string) map[string]map[string][]string
	// SubscriptionRoles returns the namespace's subscription_auth_roles
	// (subscription -> roles), nil when it has none.
	SubscriptionRoles(ns string) map[string][]string
}

// Topic is a topic as the authorizer sees it: its namespace
// ("tenant/ns"), its full name and, for a partition, its partitioned
// topic's full name (Base; Full otherwise).
type Topic struct {
	Namespace, Full, Base string
}

// Authorizer decides as Pulsar's PulsarAuthorizationProvider: super
// users may do anything, tenant admins anything in their tenant, other
// roles what the grants give them.
type Authorizer struct {
	// SuperUsers are Options.SuperUserRoles.
	SuperUsers []string
	// ProxyRoles are Options.ProxyRoles.
	ProxyRoles []string
	// Wildcards is Options.AuthorizationAllowWildcardsMatching.
	Wildcards bool
	// Grants is the permission data.
	Grants Grants
}

// IsSuperUser reports whether role is one of the super users.
func (a *Authorizer) IsSuperUser(role string) bool {
	return role != "" && slices.Contains(a.SuperUsers, role)
}

// IsTenantAdmin reports whether role is a super user or among tenant's
// adminRoles.
func (a *Authorizer) IsTenantAdmin(role, tenant string) bool {
	if a.IsSuperUser(role) {
		return true
	}
	admins, ok := a.Grants.TenantAdmins(tenant)
	return ok && role != "" && slices.Contains(admins, role)
}

// wildcardActions returns what grants give role through wildcard
// grants, when Wildcards is on.
func (a *Authorizer) wildcardActions(grants map[string][]string, role string) []string {
	if !a.Wildcards {
		return nil
	}
	return WildcardActions(grants, role)
}

// AllowTopic reports whether role may do act on topic t: tenant admins
// may do anything; other roles what the namespace's permissions, or the
// topic's own (granted on the topic, or for a partition on its
// partitioned topic), grant them; for consume also the subscription's
// roles, when the namespace names any for sub.
func (a *Authorizer) AllowTopic(role string, t Topic, act Action, sub string) bool {
	tenant, _, _ := strings.Cut(t.Namespace, "/")
	if a.IsTenantAdmin(role, tenant) {
		return true
	}
	if role == "" {
		return false
	}
	perms, ok := a.Grants.NamespacePermissions(t.Namespace)
	if !ok {
		return false
	}
	actions := append(perms[role], a.topicActions(t, role)...)
	actions = append(actions, a.wildcardActions(perms, role)...)
	switch act {
	case ActProduce:
		return slices.Contains(actions, "produce")
	case ActConsume:
		if !slices.Contains(actions, "consume") {
			return false
		}
		return a.allowSubscription(role, t.Namespace, sub)
	}
	return slices.Contains(actions, "produce") || slices.Contains(actions, "consume")
}

// topicActions returns the actions granted to role on topic t itself:
// on its name and, for a partition, on its partitioned topic (Pulsar
// grants a partitioned topic's permissions to each of its partitions).
func (a *Authorizer) topicActions(t Topic, role string) []string {
	g := a.Grants.TopicPermissions(t.Namespace)
	out := slices.Clone(g[t.Full][role])
	out = append(out, a.wildcardActions(g[t.Full], role)...)
	if t.Base != t.Full {
		out = append(out, g[t.Base][role]...)
		out = append(out, a.wildcardActions(g[t.Base], role)...)
	}
	return out
}

// allowSubscription applies the namespace's subscription_auth_roles: a
// subscription named there is open only to its roles.
func (a *Authorizer) allowSubscription(role, ns, sub string) bool {
	if sub == "" {
		return true
	}
	roles, named := a.Grants.SubscriptionRoles(ns)[sub]
	return !named || len(roles) == 0 || slices.Contains(roles, role)
}

// AllowNamespaceTopics reports whether role may list the topics of
// namespace ns (Pulsar's NamespaceOperation.GET_TOPICS): tenant admins,
// and roles the namespace grants produce or consume. A grant on one
// topic does not open the list.
func (a *Authorizer) AllowNamespaceTopics(role, ns string) bool {
	tenant, _, _ := strings.Cut(ns, "/")
	if a.IsTenantAdmin(role, tenant) {
		return true
	}
	actions := a.NamespaceActions(role, ns)
	return slices.Contains(actions, "produce") || slices.Contains(actions, "consume")
}

// NamespaceActions returns what namespace ns grants role ("produce",
// "consume", ...), nothing for no role or a missing namespace.
func (a *Authorizer) NamespaceActions(role, ns string) []string {
	if role == "" {
		return nil
	}
	perms, ok := a.Grants.NamespacePermissions(ns)
	if !ok {
		return nil
	}
	return append(perms[role], a.wildcardActions(perms, role)...)
}

// TopicOperation reports whether a role that is not the tenant's admin
// may do op on topic t and subscription sub: LOOKUP, GET_STATS and
// GET_METADATA need produce or consume, PRODUCE needs produce, reading or
// moving a subscription or its messages needs consume and the
// subscription's roles; everything else is the tenant admins'.
func (a *Authorizer) TopicOperation(role string, op Op, t Topic, sub string) bool {
	switch op {
	case TopicLookup, TopicGetStats, TopicGetMetadata:
		return a.AllowTopic(role, t, ActLookup, "")
	case TopicProduce:
		return a.AllowTopic(role, t, ActProduce, "")
	case TopicConsume, TopicSubscribe, TopicUnsubscribe, TopicGetSubscriptions, TopicSkip,
		TopicExpireMessages, TopicPeekMessages, TopicResetCursor, TopicGetBacklogSize:
		return a.AllowTopic(role, t, ActConsume, sub)
	}
	return false // TERMINATE, UNLOAD, COMPACT, OFFLOAD, TRIM_TOPIC, metadata changes
}

// NamespaceOperation reports whether a role that is not the tenant's
// admin may do op on namespace ns.
func (a *Authorizer) NamespaceOperation(role string, op Op, ns string) bool {
	switch op {
	case NsGetTopics, NsGetTopic:
		return a.AllowNamespaceTopics(role, ns)
	case NsClearBacklog, NsUnsubscribe:
		return slices.Contains(a.NamespaceActions(role, ns), "consume")
	case NsPackages:
		return slices.Contains(a.NamespaceActions(role, ns), "packages")
	}
	return false // creating and deleting topics, permissions
}

// IsProxyRole reports whether role is one of the proxy roles.
func (a *Authorizer) IsProxyRole(role string) bool {
	return role != "" && slices.Contains(a.ProxyRoles, role)
}

// ValidOriginal is Pulsar's AuthorizationService.isValidOriginalPrincipal:
// a proxy role must name an original principal, which must not be a proxy
// role itself. Another role naming one is let through (Pulsar only warns).
func (a *Authorizer) ValidOriginal(role, original string) bool {
	if !a.IsProxyRole(role) {
		return true
	}
	return strings.TrimSpace(original) != "" && !a.IsProxyRole(original)
}
