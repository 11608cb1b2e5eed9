package admin

import (
	"encoding/json"
	"maps"
	"net/http"
	"sort"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// nsName is "tenant/ns" from the path, checked to exist.
func (rq *adminReq) namespace() (string, error) {
	ns := rq.p["tenant"] + "/" + rq.p["ns"]
	if _, err := rq.b.Eng.Pol().Tenant(rq.p["tenant"]); err != nil {
		return "", err
	}
	if !rq.b.Eng.Pol().HasNamespace(ns) {
		return "", engine.RestErr(http.StatusNotFound, "Namespace does not exist")
	}
	return ns, nil
}

// namespacePolicies is the path's namespace (checked to exist), its stored
// policies and its permissions.
func (rq *adminReq) namespacePolicies() (string, map[string]json.RawMessage, map[string][]string, error) {
	ns, err := rq.namespace()
	if err != nil {
		return "", nil, nil, err
	}
	pol, perms, err := rq.b.Eng.Pol().Policies(ns)
	return ns, pol, perms, err
}

func getNamespaces(rq *adminReq) (any, error) { return rq.b.Eng.Pol().Namespaces(rq.p["tenant"]) }

func putNamespace(rq *adminReq) (any, error) {
	if !engine.ValidName(rq.p["ns"]) {
		return nil, engine.RestErr(http.StatusPreconditionFailed, "Namespace name is not valid")
	}
	var pol map[string]json.RawMessage
	if err := rq.decode(&pol); err != nil {
		return nil, err
	}
	if err := rq.b.Eng.RefuseNewNamespace(rq.p["tenant"]); err != nil { // tenant_limits.go
		return nil, err
	}
	pol, err := rq.b.defaultBundles(pol)
	if err != nil {
		return nil, err
	}
	return nil, rq.b.Eng.Pol().CreateNamespace(rq.p["tenant"]+"/"+rq.p["ns"], pol)
}

// getNamespace returns the namespace's Policies document: what was set,
// with the defaults Pulsar fills in, and its permissions.
func getNamespace(rq *adminReq) (any, error) {
	ns, pol, perms, err := rq.namespacePolicies()
	if err != nil {
		return nil, err
	}
	return rq.b.namespacePoliciesOf(ns, pol, perms)
}

func deleteNamespace(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	if err := rq.b.Eng.RefuseForceDeleteNamespace(rq.flag("force")); err != nil { // tenant_limits.go
		return nil, err
	}
	if topics := rq.b.Eng.NamespaceTopics(ns, "ALL"); len(topics) > 0 {
		if !rq.flag("force") {
			return nil, engine.RestErr(http.StatusConflict, "Cannot delete non empty namespace")
		}
		if err := rq.b.deleteNamespaceTopics(ns); err != nil {
			return nil, err
		}
	}
	return nil, rq.b.Eng.Pol().DeleteNamespace(ns)
}

// deleteNamespaceTopics force-deletes every topic of ns.
func (b *Web) deleteNamespaceTopics(ns string) error {
	for base, n := range b.Eng.PartitionedTopics() {
		if tn, err := engine.ParseTopic(base); err == nil && tn.Namespace == ns && n > 0 {
			if err := b.deletePartitioned(tn, true); err != nil {
				return err
			}
		}
	}
	for _, full := range b.Eng.NamespaceTopics(ns, "ALL") {
		if tn, err := engine.ParseTopic(full); err == nil {
			if err := b.Eng.DeleteTopic(tn, true); err != nil && !isNotFound(err) {
				return err
			}
		}
	}
	return nil
}

func getNamespaceTopics(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	mode := strings.ToUpper(rq.q.Get("mode"))
	if mode == "" {
		mode = "PERSISTENT"
	}
	return rq.b.Eng.NamespaceTopics(ns, mode), nil
}

func getPermissions(rq *adminReq) (any, error) {
	_, _, perms, err := rq.namespacePolicies()
	return perms, err
}

var validActions = map[string]bool{"produce": true, "consume": true, "functions": true, "sources": true, "sinks": true, "packages": true}

func grantPermission(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	var actions []string
	if err := rq.decode(&actions); err != nil {
		return nil, err
	}
	if actions == nil {
		actions = []string{}
	}
	for _, a := range actions {
		if !validActions[a] {
			return nil, engine.RestErr(http.StatusBadRequest, "Unknown auth action %q", a)
		}
	}
	return nil, rq.b.Eng.Pol().Grant(ns, rq.p["role"], actions)
}

func revokePermission(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	return nil, rq.b.Eng.Pol().Grant(ns, rq.p["role"], nil)
}

// namespacePolicy serves GET/POST/DELETE of one stored namespace policy.
func namespacePolicy(method string) adminHandler {
	return func(rq *adminReq) (any, error) {
		field, ok := engine.NamespacePolicyField(rq.p["policy"]) // schema_policies.go
		if !ok {
			return nil, engine.RestErr(http.StatusNotFound, "Unknown namespace policy %q", rq.p["policy"])
		}
		ns, err := rq.namespace()
		if err != nil {
			return nil, err
		}
		switch method {
		case http.MethodGet:
			v, ok, err := rq.b.Eng.Pol().NamespacePolicy(ns, field)
			if err != nil || !ok {
				return nil, err
			}
			return v, nil
		case http.MethodDelete:
			if err := rq.b.Eng.Pol().SetNamespacePolicy(ns, field, nil); err != nil {
				return nil, err
			}
			rq.b.Eng.PoliciesChanged(ns, nil)
			return nil, nil
		}
		if !rq.hasBody() {
			return nil, engine.RestErr(http.StatusBadRequest, "Missing request body")
		}
		var v json.RawMessage
		if err := rq.decode(&v); err != nil {
			return nil, err
		}
		if err := checkLimitPolicy(rq.p["policy"], v); err != nil {
			return nil, err // limits.go
		}
		if check := namespacePolicyChecks[rq.p["policy"]]; check != nil {
			if reason := check(v); reason != "" {
				return nil, engine.RestErr(http.StatusBadRequest, "%s", reason)
			}
		}
		if err := rq.b.Eng.Pol().SetNamespacePolicy(ns, field, v); err != nil {
			return nil, err
		}
		// Deduplication and delayed delivery act on the loaded topics at
		// once; TTL and retention at their next check (dedup.go).
		rq.b.Eng.PoliciesChanged(ns, nil)
		return nil, nil
	}
}

// backlogQuotaMap is the namespace's backlog quotas by type, with the
// broker's default for destination_storage when none is set.
func (b *Web) backlogQuotaMap(pol map[string]json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	if raw, ok := pol["backlog_quota_map"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			maps.Copy(out, m)
		}
	}
	if _, ok := out["destination_storage"]; !ok {
		if q := b.Cfg.BacklogQuota; q.LimitBytes > 0 || q.LimitSeconds > 0 {
			p := q.Policy
			if p == "" {
				p = "producer_request_hold"
			}
			out["destination_storage"] = rawJSON(backlogQuotaJSON{Limit: q.LimitBytes, LimitSize: q.LimitBytes, LimitTime: q.LimitSeconds, Policy: p})
		}
	}
	return out
}

func backlogType(rq *adminReq) (string, error) {
	t := rq.q.Get("backlogQuotaType")
	if t == "" {
		t = "destination_storage"
	}
	if t != "destination_storage" && t != "message_age" {
		return "", engine.RestErr(http.StatusBadRequest, "Invalid backlogQuotaType %q", t)
	}
	return t, nil
}

func getBacklogQuotaMap(rq *adminReq) (any, error) {
	_, pol, _, err := rq.namespacePolicies()
	if err != nil {
		return nil, err
	}
	return rq.b.backlogQuotaMap(pol), nil
}

// setBacklogQuota stores (or, for DELETE, removes) one backlog quota type.
func setBacklogQuota(del bool) adminHandler {
	return func(rq *adminReq) (any, error) {
		ns, err := rq.namespace()
		if err != nil {
			return nil, err
		}
		typ, err := backlogType(rq)
		if err != nil {
			return nil, err
		}
		raw, _, err := rq.b.Eng.Pol().NamespacePolicy(ns, "backlog_quota_map")
		if err != nil {
			return nil, err
		}
		m := map[string]json.RawMessage{}
		if raw != nil {
			_ = json.Unmarshal(raw, &m)
		}
		if del {
			delete(m, typ)
		} else {
			var q struct {
				Limit     *engine.FlexInt `json:"limit,omitempty"`
				LimitSize *engine.FlexInt `json:"limitSize,omitempty"`
				LimitTime *engine.FlexInt `json:"limitTime,omitempty"`
				Policy    *string         `json:"policy,omitempty"`
			}
			if err := rq.decode(&q); err != nil {
				return nil, err
			}
			if q.Policy != nil {
				switch *q.Policy {
				case "producer_request_hold", "producer_exception", "consumer_backlog_eviction":
				default:
					return nil, engine.RestErr(http.StatusBadRequest, "Invalid backlog quota policy %q", *q.Policy)
				}
			}
			if q.LimitSize == nil {
				q.LimitSize = q.Limit
			}
			q.Limit = q.LimitSize
			b, _ := json.Marshal(q)
			m[typ] = b
		}
		b, _ := json.Marshal(m)
		return nil, rq.b.Eng.Pol().SetNamespacePolicy(ns, "backlog_quota_map", b)
	}
}

// sortedNames sorts and returns names.
func sortedNames(names []string) []string {
	sort.Strings(names)
	return names
}

// namespacePolicyChecks validate policy values as Pulsar does; a check
// returns the reason a value is refused, or "".
var namespacePolicyChecks = map[string]func(json.RawMessage) string{
	"autoTopicCreation": func(v json.RawMessage) string {
		var c struct {
			Allow      bool   `json:"allowAutoTopicCreation"`
			Type       string `json:"topicType"`
			Partitions *int   `json:"defaultNumPartitions"`
		}
		if json.Unmarshal(v, &c) != nil {
			return "Invalid configuration for autoTopicCreationOverride"
		}
		const p = "Invalid configuration for autoTopicCreationOverride. the detail is [defaultNumPartitions] "
		switch {
		case !c.Allow:
		case c.Type == "partitioned" && c.Partitions == nil:
			return p + "cannot be null when the type is partitioned."
		case c.Type == "partitioned" && *c.Partitions < 1:
			return p + "cannot be less than 1 for partition type."
		case c.Type == "non-partitioned" && c.Partitions != nil:
			return p + "is not allowed to be set when the type is non-partition."
		case c.Type != "partitioned" && c.Type != "non-partitioned":
			return "Invalid configuration for autoTopicCreationOverride. the detail is [topicType] is not valid."
		}
		return ""
	},
	"offloadThresholdInSeconds": func(v json.RawMessage) string {
		var n int64
		if json.Unmarshal(v, &n) != nil || n < -1 {
			return "Invalid value for offloadThresholdInSecond"
		}
		return ""
	},
	"messageTTL":      engine.CheckMessageTTL,      // ttl.go
	"retention":       engine.CheckRetention,       // retention.go
	"delayedDelivery": engine.CheckDelayedDelivery, // delayed.go
	// The rate policies (ratelimit.go).
	"dispatchRate":             engine.CheckRatePolicy(func() any { return new(engine.DispatchRateJSON) }),
	"subscriptionDispatchRate": engine.CheckRatePolicy(func() any { return new(engine.DispatchRateJSON) }),
	"publishRate":              engine.CheckRatePolicy(func() any { return new(engine.PublishRateJSON) }),
	"subscribeRate":            engine.CheckRatePolicy(func() any { return new(engine.SubscribeRateJSON) }),
	"deduplication": func(v json.RawMessage) string {
		var on bool
		if json.Unmarshal(v, &on) != nil {
			return "deduplication: want true or false"
		}
		return ""
	},
}

// subRoles is the subscription permissions kept in a namespace's policies.
func subRoles(pol map[string]json.RawMessage) map[string][]string {
	m := map[string][]string{}
	if raw, ok := pol[engine.SubscriptionRolesField]; ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// limitPolicies are the namespace policies of a count, which Pulsar's
// NamespacesBase refuses below 0 with 412 "<policy> must be 0 or more".
var limitPolicies = map[string]bool{
	"maxProducersPerTopic": true, "maxConsumersPerTopic": true, "maxConsumersPerSubscription": true,
	"maxSubscriptionsPerTopic": true, "maxTopicsPerNamespace": true,
	"maxUnackedMessagesPerConsumer": true, "maxUnackedMessagesPerSubscription": true,
}

// checkLimitPolicy validates the value of a namespace limit policy: nil
// when it is not one or the value is a count.
func checkLimitPolicy(policy string, v json.RawMessage) error {
	if !limitPolicies[policy] {
		return nil
	}
	var n int64
	if err := json.Unmarshal(v, &n); err != nil {
		return engine.RestErr(http.StatusBadRequest, "%s: want an integer, got %s", policy, v)
	}
	if n < 0 {
		return engine.RestErr(http.StatusPreconditionFailed, "%s must be 0 or more", policy)
	}
	return nil
}
