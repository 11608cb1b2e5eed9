package admin

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

func (rq *adminReq) subscriptionRoles(ns string) (map[string][]string, error) {
	raw, ok, err := rq.b.Eng.Pol().NamespacePolicy(ns, engine.SubscriptionRolesField)
	m := map[string][]string{}
	if err != nil || !ok {
		return m, err
	}
	_ = json.Unmarshal(raw, &m)
	return m, nil
}

// updateSubscriptionRoles applies f to the namespace's subscription
// permissions atomically; an error of f changes nothing.
func (rq *adminReq) updateSubscriptionRoles(ns string, f func(map[string][]string) error) error {
	return rq.b.Eng.Pol().UpdateNamespacePolicy(ns, engine.SubscriptionRolesField, func(raw json.RawMessage) (json.RawMessage, error) {
		m := map[string][]string{}
		if raw != nil {
			_ = json.Unmarshal(raw, &m)
		}
		if err := f(m); err != nil {
			return nil, err
		}
		return json.Marshal(m)
	})
}

func getSubPermissions(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	return rq.subscriptionRoles(ns)
}

// grantSubPermission gives roles the right to use a subscription (checked
// on SUBSCRIBE with authorization on, allowSubscription).
func grantSubPermission(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	var roles []string
	if err := rq.decode(&roles); err != nil {
		return nil, err
	}
	return nil, rq.updateSubscriptionRoles(ns, func(m map[string][]string) error {
		all := append(m[rq.p["sub"]], roles...)
		sort.Strings(all)
		m[rq.p["sub"]] = slices.Compact(all)
		return nil
	})
}

func revokeSubPermission(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	return nil, rq.updateSubscriptionRoles(ns, func(m map[string][]string) error {
		roles, ok := m[rq.p["sub"]]
		if !ok || !slices.Contains(roles, rq.p["role"]) {
			return engine.RestErr(http.StatusPreconditionFailed, "Role %s is not granted the subscription %s", rq.p["role"], rq.p["sub"])
		}
		m[rq.p["sub"]] = slices.DeleteFunc(roles, func(r string) bool { return r == rq.p["role"] })
		if len(m[rq.p["sub"]]) == 0 {
			delete(m, rq.p["sub"])
		}
		return nil
	})
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
		case Get:
			v, ok, err := rq.b.Eng.Pol().NamespacePolicy(ns, field)
			if err != nil || !ok {
				return nil, err
			}
			return v, nil
		case Del:
			return nil, rq.b.Eng.Pol().SetNamespacePolicy(ns, field, nil)
		}
		var v json.RawMessage
		if err := rq.decode(&v); err != nil {
			return nil, err
		}
		if v == nil {
			return nil, engine.RestErr(http.StatusBadRequest, "Missing request body")
		}
		return nil, rq.b.Eng.Pol().SetNamespacePolicy(ns, field, v)
	}
}
