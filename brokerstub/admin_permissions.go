package brokerstub

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
)

// subscriptionRolesField holds a namespace's subscription permissions
// (Pulsar's auth_policies.subscription_auth_roles: subscription -> roles).
const subscriptionRolesField = "subscription_auth_roles"

func (rq *adminReq) subscriptionRoles(ns string) (map[string][]string, error) {
	raw, ok, err := rq.b.pol().NamespacePolicy(ns, subscriptionRolesField)
	m := map[string][]string{}
	if err != nil || !ok {
		return m, err
	}
	_ = json.Unmarshal(raw, &m)
	return m, nil
}

func (rq *adminReq) setSubscriptionRoles(ns string, m map[string][]string) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return rq.b.pol().SetNamespacePolicy(ns, subscriptionRolesField, raw)
}

func getSubPermissions(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	return rq.subscriptionRoles(ns)
}

// grantSubPermission gives roles the right to use a subscription; the
// roles are stored, not checked (authorization is not implemented).
func grantSubPermission(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	var roles []string
	if err := rq.decode(&roles); err != nil {
		return nil, err
	}
	m, err := rq.subscriptionRoles(ns)
	if err != nil {
		return nil, err
	}
	all := append(m[rq.p["sub"]], roles...)
	sort.Strings(all)
	m[rq.p["sub"]] = slices.Compact(all)
	return nil, rq.setSubscriptionRoles(ns, m)
}

func revokeSubPermission(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	m, err := rq.subscriptionRoles(ns)
	if err != nil {
		return nil, err
	}
	roles, ok := m[rq.p["sub"]]
	if !ok || !slices.Contains(roles, rq.p["role"]) {
		return nil, restErr(http.StatusPreconditionFailed, "Role %s is not granted the subscription %s", rq.p["role"], rq.p["sub"])
	}
	m[rq.p["sub"]] = slices.DeleteFunc(roles, func(r string) bool { return r == rq.p["role"] })
	if len(m[rq.p["sub"]]) == 0 {
		delete(m, rq.p["sub"])
	}
	return nil, rq.setSubscriptionRoles(ns, m)
}

// bookieAffinity serves a namespace's bookie affinity group, stored only
// (there are no bookies).
func bookieAffinity(method string) adminHandler {
	return func(rq *adminReq) (any, error) {
		ns, err := rq.namespace()
		if err != nil {
			return nil, err
		}
		const field = "bookie_affinity_group"
		switch method {
		case get:
			v, ok, err := rq.b.pol().NamespacePolicy(ns, field)
			if err != nil || !ok {
				return nil, err
			}
			return v, nil
		case del:
			return nil, rq.b.pol().SetNamespacePolicy(ns, field, nil)
		}
		var v json.RawMessage
		if err := rq.decode(&v); err != nil {
			return nil, err
		}
		if v == nil {
			return nil, restErr(http.StatusBadRequest, "Missing request body")
		}
		return nil, rq.b.pol().SetNamespacePolicy(ns, field, v)
	}
}
