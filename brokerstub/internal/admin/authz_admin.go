package admin

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// adminTarget is what an admin request names, from its route's captures.
type adminTarget struct {
	tenant    string
	namespace string // "tenant/ns", "" when the route names none
	topic     string // the full topic name, "" when the route names none
	sub       string // the subscription, "" when the route names none
}

// authorizeAdmin decides whether role may do op on t, as Pulsar's
// PulsarWebResource checks and PulsarAuthorizationProvider decide, and
// returns Pulsar's refusal (its status and text) or nil. It is called
// only with authorization on.
//
// Super users may do everything. Tenant admins may do everything within
// their tenant but what only super users may. Other roles: topic
// operations by the namespace's and the topic's grants (allowTopic, as
// the binary protocol's LOOKUP, PRODUCER and SUBSCRIBE): LOOKUP,
// GET_STATS and GET_METADATA need produce or consume, PRODUCE needs
// produce, and reading or moving a subscription or its messages
// (SUBSCRIBE, PEEK_MESSAGES, GET_SUBSCRIPTIONS, SKIP, EXPIRE_MESSAGES,
// RESET_CURSOR, UNSUBSCRIBE, ...) needs consume and the subscription's
// roles; the topic lists need a namespace grant; everything else is the
// tenant admins'.
func (b *Web) authorizeAdmin(role string, op adminOp, t adminTarget) *engine.RestError {
	switch op.Scope() {
	case auth.ScopeOpen, auth.ScopeAuthenticated:
		return nil
	case auth.ScopeTenantAdmin, auth.ScopeTenant, auth.ScopeNamespace, auth.ScopeNamespacePolicy, auth.ScopeTopic, auth.ScopeTopicPolicy:
		if b.Eng.IsTenantAdmin(role, t.tenant) {
			return nil
		}
	default: // super users only, and an undeclared operation
		if b.Eng.IsSuperUser(role) {
			return nil
		}
		return engine.RestErr(http.StatusUnauthorized, "This operation requires super-user access")
	}
	switch op.Scope() {
	case auth.ScopeTenantAdmin, auth.ScopeTenant, auth.ScopeNamespacePolicy, auth.ScopeTopicPolicy:
		// Pulsar's validateTenantAdminAccess looks the tenant up before
		// it judges the role: a missing tenant is 404, not a refusal.
		if _, err := b.Eng.Pol().Tenant(t.tenant); errors.Is(err, policy.ErrNotFound) {
			return engine.RestErr(http.StatusNotFound, "Tenant does not exist")
		}
	}
	switch op.Scope() {
	case auth.ScopeTenant:
		return engine.RestErr(http.StatusUnauthorized, "Unauthorized to validateTenantOperation for originalPrincipal [null] and clientAppId [%s] about operation [%s] on tenant [%s]", role, op, t.tenant)
	case auth.ScopeNamespace:
		if b.allowNamespaceOperation(role, op, t.namespace) {
			return nil
		}
		if op == nsPackages { // PackagesBase.checkPermissions
			return engine.RestErr(http.StatusUnauthorized, "Role %s has not the 'package' permission to do the packages operations.", role)
		}
		return engine.RestErr(http.StatusForbidden, "Unauthorized to validateNamespaceOperation for operation [%s] on namespace [%s]", op, t.namespace)
	case auth.ScopeNamespacePolicy:
		return engine.RestErr(http.StatusForbidden, "Unauthorized to validateNamespacePolicyOperation for operation [%s] on namespace [%s]", op, t.namespace)
	case auth.ScopeTopic:
		if b.allowTopicOperation(role, op, t.topic, t.sub) {
			return nil
		}
		return engine.RestErr(http.StatusUnauthorized, "Unauthorized to validateTopicOperation for operation [%s] on topic [%s]", op, t.topic)
	case auth.ScopeTopicPolicy:
		return engine.RestErr(http.StatusForbidden, "Unauthorized to validateTopicPolicyOperation for operation [%s] on topic [%s]", op, t.topic)
	}
	return engine.RestErr(http.StatusUnauthorized, "Don't have permission to administrate resources on this tenant")
}

// OriginalPrincipalHeader is the header a Pulsar proxy names its client's
// role in on admin requests.
const OriginalPrincipalHeader = "X-Original-Principal"

// authorizeAdminAs is authorizeAdmin for a request that may come through a
// proxy: the X-Original-Principal header names the proxy's client. A proxy
// role without one (or naming a proxy role) is 401; when a proxy role or
// an original principal is involved both must be allowed, as Pulsar's
// PulsarWebResource checks. The binary protocol's counterpart is
// conn.connectOriginal (proxy_roles.go); both ask the auth.Authorizer.
func (b *Web) authorizeAdminAs(r *http.Request, role string, op adminOp, target adminTarget) *engine.RestError {
	original := ""
	if b.Eng.AuthEnabled() {
		original = r.Header.Get(OriginalPrincipalHeader)
	}
	az := b.Eng.Authorizer()
	if !az.ValidOriginal(role, original) {
		return engine.RestErr(http.StatusUnauthorized, "Invalid combination of Original principal cannot be empty if the request is via proxy.")
	}
	if re := b.authorizeAdmin(role, op, target); re != nil {
		return re
	}
	if az.IsProxyRole(role) || strings.TrimSpace(original) != "" {
		return b.authorizeAdmin(original, op, target)
	}
	return nil
}

// allowTopicOperation reports whether a role that is not the tenant's
// admin may do op on topic (a full name) and subscription sub
// (auth.Authorizer.TopicOperation).
func (b *Web) allowTopicOperation(role string, op adminOp, topic, sub string) bool {
	name, err := engine.ParseTopic(topic)
	if err != nil {
		return false
	}
	return b.Eng.Authorizer().TopicOperation(role, op, engine.AuthTopic(name), sub)
}

// allowNamespaceOperation reports whether a role that is not the
// tenant's admin may do op on namespace ns.
func (b *Web) allowNamespaceOperation(role string, op adminOp, ns string) bool {
	return b.Eng.Authorizer().NamespaceOperation(role, op, ns)
}

// adminTargetOf returns what a request on route rt names, from its
// captures p: a route without a {domain} capture is of its own domain.
func adminTargetOf(rt *Route, p map[string]string) adminTarget {
	t := adminTarget{tenant: p["tenant"], sub: p["sub"]}
	if ns, ok := p["ns"]; ok {
		t.namespace = t.tenant + "/" + ns
	}
	if topic, ok := p["topic"]; ok {
		domain := p["domain"]
		if domain == "" {
			domain = rt.domain
		}
		t.topic = domain + "://" + t.namespace + "/" + topic
	}
	return t
}

// routeDomain is the domain of the topics of a route without a {domain}
// capture: "non-persistent" when the pattern names it, else persistent
// (the schema resource, as Pulsar's SchemasResource).
func routeDomain(segs []string) string {
	if slices.Contains(segs, engine.NonPersistentDomain) {
		return engine.NonPersistentDomain
	}
	return "persistent"
}
