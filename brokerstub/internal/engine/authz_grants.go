package engine

import "encoding/json"

// policyGrants is the policy store as internal/auth reads it
// (auth.Grants): the tenants' admin roles, the namespaces' permissions,
// their topic-level permissions (destination_auth) and their
// subscription_auth_roles. Unreadable data grants nothing, as a missing
// namespace; unreadable subscription roles restrict nothing.
type policyGrants struct{ b *Engine }

func (g policyGrants) TenantAdmins(tenant string) ([]string, bool) {
	t, err := g.b.Pol().Tenant(tenant)
	if err != nil {
		return nil, false
	}
	return t.AdminRoles, true
}

func (g policyGrants) NamespacePermissions(ns string) (map[string][]string, bool) {
	_, perms, err := g.b.Pol().Policies(ns)
	return perms, err == nil
}

func (g policyGrants) TopicPermissions(ns string) map[string]map[string][]string {
	return g.b.TopicGrantsOf(ns)
}

func (g policyGrants) SubscriptionRoles(ns string) map[string][]string {
	raw, ok, err := g.b.Pol().NamespacePolicy(ns, SubscriptionRolesField)
	if err != nil || !ok {
		return nil
	}
	var m map[string][]string
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}
