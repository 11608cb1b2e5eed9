package brokerstub

import (
	"github.com/pulsargo/sdk/brokerstub/internal/auth"
)

// authzAction is what a role asks to do on a topic (auth.Action).
type authzAction = auth.Action

const (
	actLookup  = auth.ActLookup  // produce or consume granted
	actProduce = auth.ActProduce // produce granted
	actConsume = auth.ActConsume // consume granted
)

// authzOn reports whether authorization is checked.
func (b *engine) authzOn() bool { return b.cfg.AuthorizationEnabled }

// authorizer returns the decisions of internal/auth over the broker's
// options and its policy store (authz_grants.go).
func (b *engine) authorizer() *auth.Authorizer {
	return &auth.Authorizer{
		SuperUsers: b.cfg.SuperUserRoles,
		ProxyRoles: b.cfg.ProxyRoles,
		Wildcards:  b.cfg.AuthorizationAllowWildcardsMatching,
		Grants:     policyGrants{b},
	}
}

// isSuperUser reports whether role is one of Options.SuperUserRoles.
func (b *engine) isSuperUser(role string) bool { return b.authorizer().IsSuperUser(role) }

// isTenantAdmin reports whether role is a super user or among tenant's
// adminRoles.
func (b *engine) isTenantAdmin(role, tenant string) bool {
	return b.authorizer().IsTenantAdmin(role, tenant)
}

// allowTopic reports whether role may do act on topic name
// (auth.Authorizer.AllowTopic); everything is allowed with authorization
// off.
func (b *engine) allowTopic(role string, name topicName, act authzAction, sub string) bool {
	return !b.authzOn() || b.authorizer().AllowTopic(role, authTopic(name), act, sub)
}

// allowNamespaceTopics reports whether role may list the topics of
// namespace ns (auth.Authorizer.AllowNamespaceTopics); everything is
// allowed with authorization off.
func (b *engine) allowNamespaceTopics(role, ns string) bool {
	return !b.authzOn() || b.authorizer().AllowNamespaceTopics(role, ns)
}

// authTopic is name as the authorizer sees it.
func authTopic(name topicName) auth.Topic {
	return auth.Topic{Namespace: name.Namespace, Full: name.Full, Base: name.Base}
}

// authEnabled reports whether clients must authenticate.
func (b *engine) authEnabled() bool { return b.cfg.AuthenticationEnabled }
