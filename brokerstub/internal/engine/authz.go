package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/auth"
)

// AuthzAction is what a role asks to do on a topic (auth.Action).
type AuthzAction = auth.Action

const (
	ActLookup  = auth.ActLookup  // produce or consume granted
	ActProduce = auth.ActProduce // produce granted
	ActConsume = auth.ActConsume // consume granted
)

// AuthzOn reports whether authorization is checked.
func (b *Engine) AuthzOn() bool { return b.cfg.AuthorizationEnabled }

// Authorizer returns the decisions of internal/auth over the broker's
// options and its policy store (authz_grants.go).
func (b *Engine) Authorizer() *auth.Authorizer {
	return &auth.Authorizer{
		SuperUsers: b.cfg.SuperUserRoles,
		ProxyRoles: b.cfg.ProxyRoles,
		Wildcards:  b.cfg.AuthorizationAllowWildcardsMatching,
		Grants:     policyGrants{b},
	}
}

// IsSuperUser reports whether role is one of Options.SuperUserRoles.
func (b *Engine) IsSuperUser(role string) bool { return b.Authorizer().IsSuperUser(role) }

// IsTenantAdmin reports whether role is a super user or among tenant's
// adminRoles.
func (b *Engine) IsTenantAdmin(role, tenant string) bool {
	return b.Authorizer().IsTenantAdmin(role, tenant)
}

// AllowTopic reports whether role may do act on topic name
// (auth.Authorizer.AllowTopic); everything is allowed with authorization
// off.
func (b *Engine) AllowTopic(role string, name TopicName, act AuthzAction, sub string) bool {
	return !b.AuthzOn() || b.Authorizer().AllowTopic(role, AuthTopic(name), act, sub)
}

// AllowNamespaceTopics reports whether role may list the topics of
// namespace ns (auth.Authorizer.AllowNamespaceTopics); everything is
// allowed with authorization off.
func (b *Engine) AllowNamespaceTopics(role, ns string) bool {
	return !b.AuthzOn() || b.Authorizer().AllowNamespaceTopics(role, ns)
}

// AuthTopic is name as the authorizer sees it.
func AuthTopic(name TopicName) auth.Topic {
	return auth.Topic{Namespace: name.Namespace, Full: name.Full, Base: name.Base}
}

// AuthEnabled reports whether clients must authenticate.
func (b *Engine) AuthEnabled() bool { return b.cfg.AuthenticationEnabled }
