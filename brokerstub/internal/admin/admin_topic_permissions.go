package admin

import (
	"net/http"
	"slices"
	"sort"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// The topic-level permissions of Pulsar's admin API:
// /admin/v2/{domain}/{tenant}/{ns}/{topic}/permissions[/{role}]. They are
// kept in the namespace's auth_policies.destination_auth and honoured with
// the namespace's on LOOKUP, PRODUCER and SUBSCRIBE (allowTopic).

func (a *routeTable) registerTopicPermissions() {
	a.Add(Get, TopicPath+"/permissions", opTenantAdmin, getTopicPermissions)
	a.Add(Post, TopicPath+"/permissions/{role}", opTenantAdmin, grantTopicPermission)
	a.Add(Del, TopicPath+"/permissions/{role}", opTenantAdmin, revokeTopicPermission)
}

// getTopicPermissions answers the topic's effective permissions, as
// Pulsar's getPermissionsOnTopic: the namespace's grants united with the
// topic's own (for a partition, also its partitioned topic's), role ->
// sorted actions.
func getTopicPermissions(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	_, perms, err := rq.b.Eng.Pol().Policies(name.Namespace)
	if err != nil {
		return nil, err
	}
	g := rq.b.Eng.TopicGrantsOf(name.Namespace)
	for _, t := range []string{name.Full, name.Base} {
		for role, actions := range g[t] {
			perms[role] = append(perms[role], actions...)
		}
	}
	for role, actions := range perms {
		sort.Strings(actions)
		perms[role] = slices.Compact(actions)
	}
	return perms, nil
}

// grantTopicPermission gives a role actions on one topic (Pulsar's
// grantPermissionsOnTopic; the body is the JSON array of actions). The
// topic need not exist yet, as in Pulsar.
func grantTopicPermission(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	var actions []string
	if err := rq.decode(&actions); err != nil {
		return nil, err
	}
	for _, act := range actions {
		if !validActions[act] {
			return nil, engine.RestErr(http.StatusBadRequest, "Unknown auth action %q", act)
		}
	}
	return nil, rq.b.Eng.UpdateTopicGrants(name.Namespace, func(g engine.TopicGrants) error {
		g.Grant(name.Full, rq.p["role"], actions)
		return nil
	})
}

// revokeTopicPermission removes a role's permissions on one topic; a role
// with none there (granted only on the namespace, or not at all) is 412,
// as Pulsar's revokePermissionsOnTopic.
func revokeTopicPermission(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	return nil, rq.b.Eng.UpdateTopicGrants(name.Namespace, func(g engine.TopicGrants) error {
		if !g.Revoke(name.Full, rq.p["role"]) {
			return engine.RestErr(http.StatusPreconditionFailed, "Permissions are not set at the topic level")
		}
		return nil
	})
}
