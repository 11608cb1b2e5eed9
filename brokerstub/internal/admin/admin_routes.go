package admin

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

const (
	Get, Put, Post, Del = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete
	TopicPath           = "/admin/v2/{domain}/{tenant}/{ns}/{topic}"
	SubPath             = TopicPath + "/subscription/{sub}"
	NsPath              = "/admin/v2/namespaces/{tenant}/{ns}"
)

// Register lists every route, one a line: method, pattern, the Pulsar
// operation it is (authz_ops.go; it alone decides who may use the route)
// and handler. Literal segments come before captures that could match
// them.
func (a *routeTable) Register() {
	a.Add(Get, "/admin/v2/clusters", opAuthenticated, getClusters)
	a.Add(Get, "/admin/v2/clusters/{cluster}", OpSuperUser, getCluster)
	a.Add(Get, "/admin/v2/brokers", brokerList, getBrokers)
	a.Add(Get, "/admin/v2/brokers/health", brokerHealthcheck, healthCheck)
	a.Add(Get, "/admin/v2/brokers/ready", opAuthenticated, healthCheck)
	a.Add(Get, "/admin/v2/brokers/leaderBroker", OpSuperUser, getLeaderBroker)
	a.Add(Get, "/admin/v2/brokers/internal-configuration", brokerGetInternalConfig, getInternalConfig)
	a.Add(Get, "/admin/v2/brokers/configuration", brokerListDynamicConfig, getDynamicNames)
	a.Add(Get, "/admin/v2/brokers/configuration/values", brokerGetAllDynamicConfig, getDynamicValues)
	a.Add(Get, "/admin/v2/brokers/configuration/runtime", brokerGetRuntimeConfig, getRuntimeConfig)
	a.Add(Post, "/admin/v2/brokers/configuration/{name}/{value}", brokerUpdateDynamicConfig, setDynamicConfig)
	a.Add(Del, "/admin/v2/brokers/configuration/{name}", brokerDeleteDynamicConfig, deleteDynamicConfig)
	a.Add(Get, "/admin/v2/brokers/{cluster}", brokerList, getBrokers)
	a.Add(Get, "/admin/v2/tenants", OpSuperUser, getTenants)
	a.Add(Get, "/admin/v2/tenants/{tenant}", OpSuperUser, getTenant)
	a.Add(Put, "/admin/v2/tenants/{tenant}", OpSuperUser, putTenant)
	a.Add(Post, "/admin/v2/tenants/{tenant}", OpSuperUser, postTenant)
	a.Add(Del, "/admin/v2/tenants/{tenant}", OpSuperUser, deleteTenant)

	a.Add(Get, "/admin/v2/namespaces/{tenant}", tenantListNamespaces, getNamespaces)
	a.Add(Get, NsPath, nsPolicyRead, getNamespace)
	a.Add(Put, NsPath, tenantCreateNamespace, putNamespace)
	a.Add(Del, NsPath, tenantDeleteNamespace, deleteNamespace)
	a.Add(Get, NsPath+"/topics", nsGetTopics, getNamespaceTopics)
	a.Add(Get, NsPath+"/permissions", nsGetPermission, getPermissions)
	a.Add(Get, NsPath+"/permissions/subscription", nsGetPermission, getSubPermissions)
	a.Add(Post, NsPath+"/permissions/subscription/{sub}", nsGrantPermission, grantSubPermission)
	a.Add(Del, NsPath+"/permissions/{sub}/{role}", nsRevokePermission, revokeSubPermission)
	a.Add(Get, NsPath+"/persistence/bookieAffinity", OpSuperUser, bookieAffinity(Get))
	a.Add(Post, NsPath+"/persistence/bookieAffinity", OpSuperUser, bookieAffinity(Post))
	a.Add(Del, NsPath+"/persistence/bookieAffinity", OpSuperUser, bookieAffinity(Del))
	a.Add(Post, NsPath+"/permissions/{role}", nsGrantPermission, grantPermission)
	a.Add(Del, NsPath+"/permissions/{role}", nsRevokePermission, revokePermission)
	a.Add(Get, NsPath+"/backlogQuotaMap", nsPolicyRead, getBacklogQuotaMap)
	a.Add(Post, NsPath+"/backlogQuota", nsPolicyWrite, setBacklogQuota(false))
	a.Add(Del, NsPath+"/backlogQuota", nsPolicyWrite, setBacklogQuota(true))
	a.Add(Put, NsPath+"/unload", OpSuperUser, unloadNamespace)
	a.Add(Get, NsPath+"/bundles", nsPolicyRead, getBundles) // admin_bundles.go
	a.Add(Get, NsPath+"/{policy}", nsPolicyRead, namespacePolicy(Get))
	a.Add(Post, NsPath+"/{policy}", nsPolicyWrite, namespacePolicy(Post))
	a.Add(Put, NsPath+"/{policy}", nsPolicyWrite, namespacePolicy(Post))
	a.Add(Del, NsPath+"/{policy}", nsPolicyWrite, namespacePolicy(Del))

	a.registerNonPersistent() // admin_nonpersistent.go: before the {domain} routes
	a.Add(Get, "/admin/v2/{domain}/{tenant}/{ns}", nsGetTopics, listTopics)
	a.Add(Get, "/admin/v2/{domain}/{tenant}/{ns}/partitioned", nsGetTopics, listPartitionedTopics)
	a.Add(Put, TopicPath, nsCreateTopic, putTopic)
	a.Add(Del, TopicPath, nsDeleteTopic, deleteTopicHandler)
	a.Add(Get, TopicPath+"/partitions", topicLookup, getPartitions)
	a.Add(Put, TopicPath+"/partitions", nsCreateTopic, putPartitions)
	a.Add(Post, TopicPath+"/partitions", topicPolicyWrite, postPartitions)
	a.Add(Del, TopicPath+"/partitions", nsDeleteTopic, deletePartitions)
	a.Add(Get, TopicPath+"/stats", topicGetStats, getTopicStats)
	a.Add(Get, TopicPath+"/partitioned-stats", topicGetStats, partitionedStats)
	a.Add(Get, TopicPath+"/internalStats", topicGetStats, getInternalStats)
	a.Add(Put, TopicPath+"/unload", topicUnload, unloadTopic)
	a.Add(Post, TopicPath+"/terminate", topicTerminate, terminateTopic)
	a.Add(Put, TopicPath+"/compaction", topicCompact, triggerCompaction)  // admin_compaction.go
	a.Add(Get, TopicPath+"/compaction", topicCompact, compactionStatusOf) // before {policy}
	a.Add(Get, TopicPath+"/lastMessageId", TopicPeekMessages, lastMessageID)
	a.Add(Get, TopicPath+"/messageid/{timestamp}", TopicPeekMessages, messageIDByTime)
	a.Add(Get, TopicPath+"/subscriptions", topicGetSubscriptions, listSubscriptions)
	a.Add(Get, TopicPath+"/examinemessage", TopicPeekMessages, examineMessage)
	a.Add(Get, TopicPath+"/ledger/{ledger}/entry/{entry}", TopicPeekMessages, getEntry)
	a.Add(Post, TopicPath+"/all_subscription/expireMessages/{seconds}", topicExpireMessages, expireAllSubscriptions)
	a.Add(Put, SubPath, topicSubscribe, createSubscription)
	a.Add(Del, SubPath, topicUnsubscribe, deleteSubscription)
	a.Add(Post, SubPath+"/resetcursor", topicResetCursor, resetCursorByID)
	a.Add(Post, SubPath+"/resetcursor/{timestamp}", topicResetCursor, resetCursorByTime)
	a.Add(Post, SubPath+"/skip/{n}", topicSkip, skipMessages)
	a.Add(Post, SubPath+"/skip_all", topicSkip, skipAll)
	a.Add(Post, SubPath+"/expireMessages", topicExpireMessages, expireByID)
	a.Add(Post, SubPath+"/expireMessages/{seconds}", topicExpireMessages, expireMessages)
	a.Add(Get, SubPath+"/position/{n}", TopicPeekMessages, peekMessage)
	a.Add(Post, SubPath+"/analyzeBacklog", topicConsume, analyzeBacklog)
	a.registerTopicPermissions() // admin_topic_permissions.go: before {policy}
	a.Add(Get, TopicPath+"/properties", topicGetMetadata, topicProperties(Get))
	a.Add(Put, TopicPath+"/properties", topicUpdateMetadata, topicProperties(Put))
	a.Add(Del, TopicPath+"/properties", topicDeleteMetadata, topicProperties(Del))
	a.Add(Get, TopicPath+"/{policy}", topicPolicyRead, topicPolicy(Get))
	a.Add(Post, TopicPath+"/{policy}", topicPolicyWrite, topicPolicy(Post))
	a.Add(Put, TopicPath+"/{policy}", topicPolicyWrite, topicPolicy(Post))
	a.Add(Del, TopicPath+"/{policy}", topicPolicyWrite, topicPolicy(Del))

	a.Add(Get, "/lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}", topicLookup, lookupTopic)
	const schemaPath = "/admin/v2/schemas/{tenant}/{ns}/{topic}"
	a.Add(Get, schemaPath+"/schema", topicGetMetadata, persistentDomain(getSchema))
	a.Add(Post, schemaPath+"/schema", topicProduce, persistentDomain(postSchema))
	a.Add(Del, schemaPath+"/schema", opTenantAdmin, persistentDomain(deleteSchema))
	a.Add(Get, schemaPath+"/schema/{version}", topicGetMetadata, persistentDomain(getSchema))
	a.Add(Get, schemaPath+"/schemas", topicGetMetadata, persistentDomain(getAllSchemas))
	a.Add(Post, schemaPath+"/compatibility", opTenantAdmin, persistentDomain(testSchemaCompatibility))
	a.Add(Post, schemaPath+"/version", topicGetMetadata, persistentDomain(getSchemaVersion))
	a.registerTransactions()    // admin_transactions.go
	a.registerFunctionsWorker() // admin_functions.go
	a.registerPackages()        // admin_packages.go
	a.Add(Get, "/metrics", opOpen, getMetrics)
	a.registerPprof()   // admin_pprof.go: answered only with Options.Profiling
	a.registerConsole() // console.go: only with Options.Console
	a.Add(Get, "/status.html", opOpen, func(*adminReq) (any, error) { return rawReply{contentType: "text/plain", body: []byte("OK")}, nil })
}

// persistentDomain serves a path without a domain segment (schemas) as a
// persistent topic's.
func persistentDomain(h adminHandler) adminHandler {
	return func(rq *adminReq) (any, error) {
		rq.p["domain"] = "persistent"
		return h(rq)
	}
}

func getTopicStats(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	if rq.b.Eng.PartitionCountOf(name) > 0 {
		return nil, topicNotFound(name)
	}
	var st *engine.TopicStats
	if err := rq.onTopic(name, func(t *engine.Topic) { st = t.Stats(rq.statsOptions()) }); err != nil {
		return nil, err
	}
	return st, nil
}

// statsOptions reads excludePublishers and excludeConsumers.
func (rq *adminReq) statsOptions() engine.StatsOptions {
	return engine.StatsOptions{NoPublishers: rq.flag("excludePublishers"), NoConsumers: rq.flag("excludeConsumers")}
}

// messageIDByTime answers the id of the first message published at or
// after a time (Unix ms), 404 when there is none.
func messageIDByTime(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	ts, err := parseInt64(rq.p["timestamp"], "timestamp")
	if err != nil {
		return nil, err
	}
	var id engine.MessageIDJSON
	found := false
	err = rq.onTopic(name, func(t *engine.Topic) { id, found = t.MessageIDByTime(ts) })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, engine.RestErr(http.StatusNotFound, "Message ID not found")
	}
	return id, nil
}

func getInternalStats(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	var st *engine.InternalStats
	if err := rq.onTopic(name, func(t *engine.Topic) { st = t.InternalStats() }); err != nil {
		return nil, err
	}
	return st, nil
}

// partitionedStats sums the partitions' stats, with each partition's own
// under "partitions" unless perPartition=false.
func partitionedStats(rq *adminReq) (any, error) {
	name, err := rq.topic()
	if err != nil {
		return nil, err
	}
	n := rq.b.Eng.PartitionCountOf(name)
	if n == 0 {
		return nil, engine.RestErr(http.StatusNotFound, "Partitioned Topic not found: %s", name.Full)
	}
	total := &engine.PartitionedTopicStats{Metadata: engine.PartitionedMetadata{Partitions: n}, Partitions: map[string]*engine.TopicStats{}}
	parts := map[string]*engine.TopicStats{}
	var pubs [][]*engine.PublisherStats
	loaded := false
	err = rq.forEachPartition(name, false, func(t *engine.Topic) error {
		st := t.Stats(rq.statsOptions())
		parts[t.TopicName().Full] = st
		if loaded {
			total.TopicStats.Add(st) // admin_nonpersistent.go
		} else {
			total.TopicStats = st.Clone()
			loaded = true
		}
		pubs = append(pubs, st.Publishers)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !loaded {
		total.TopicStats = engine.TopicStats{Publishers: []*engine.PublisherStats{}, Subscriptions: map[string]*engine.SubscriptionStats{},
			Replication: map[string]struct{}{}, DeduplicationStatus: "Disabled"}
	}
	total.Publishers = MergePublishers(pubs) // admin_stats_publishers.go
	if rq.q.Get("perPartition") != "false" {
		total.Partitions = parts
	}
	return total, nil
}

func unloadNamespace(rq *adminReq) (any, error) {
	ns, err := rq.namespace()
	if err != nil {
		return nil, err
	}
	for _, full := range rq.b.Eng.NamespaceTopics(ns, "ALL") {
		if err := rq.b.Eng.Unload(full); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// topicPolicy serves GET/POST/DELETE of a stored topic-level policy (the
// policy path segment names it; backlogQuota is kept per backlogQuotaType).
// The topic must exist.
func topicPolicy(method string) adminHandler {
	return func(rq *adminReq) (any, error) {
		name, err := rq.topic()
		if err != nil {
			return nil, err
		}
		field := rq.p["policy"]
		if !engine.TopicPolicyNames[field] {
			return nil, engine.RestErr(http.StatusNotFound, "Not Found: %s", rq.r.URL.Path)
		}
		if err := rq.b.Eng.RefuseTopicPolicies(); err != nil { // tenant_limits.go
			return nil, err
		}
		if rq.b.Eng.PartitionCountOf(name) == 0 && !rq.b.Eng.TopicExists(name) {
			return nil, topicNotFound(name)
		}
		if field == "backlogQuota" || field == "backlogQuotaMap" {
			typ, err := backlogType(rq)
			if err != nil {
				return nil, err
			}
			if field == "backlogQuotaMap" {
				out := map[string]json.RawMessage{}
				for _, t := range []string{"destination_storage", "message_age"} {
					if v, ok := rq.b.Eng.Pol().TopicPolicy(name.Full, "backlogQuota/"+t); ok {
						out[t] = v
					}
				}
				return out, nil
			}
			field += "/" + typ
		}
		switch method {
		case Get:
			if v, ok := rq.b.Eng.Pol().TopicPolicy(name.Full, field); ok {
				return v, nil
			}
			// applied=true: the value in effect, from the namespace.
			if nsField, ok := engine.TopicToNamespacePolicy[field]; ok && rq.flag("applied") {
				if v, ok, _ := rq.b.Eng.Pol().NamespacePolicy(name.Namespace, nsField); ok {
					return v, nil
				}
			}
			return nil, nil
		case Del:
			err := rq.b.Eng.Pol().SetTopicPolicy(name.Full, field, nil)
			if err == nil {
				rq.b.Eng.PoliciesChanged(name.Namespace, &name) // dedup.go
			}
			return nil, err
		}
		var v json.RawMessage
		switch qv := rq.q.Get(rq.p["policy"]); {
		case rq.hasBody():
			if err := rq.decode(&v); err != nil {
				return nil, err
			}
		case qv != "":
			// Some setters send the value as a query parameter named like
			// the policy (messageTTL=600).
			if !json.Valid([]byte(qv)) {
				return nil, engine.RestErr(http.StatusBadRequest, "Invalid value %q", qv)
			}
			v = json.RawMessage(qv)
		default:
			return nil, engine.RestErr(http.StatusBadRequest, "Missing request body")
		}
		// The enforced policies are validated and applied as the
		// namespace's are (admin_namespaces.go, dedup.go).
		if check := namespacePolicyChecks[strings.TrimSuffix(field, "Enabled")]; check != nil {
			if reason := check(v); reason != "" {
				return nil, engine.RestErr(http.StatusBadRequest, "%s", reason)
			}
		}
		if err := rq.b.Eng.Pol().SetTopicPolicy(name.Full, field, v); err != nil {
			return nil, err
		}
		rq.b.Eng.PoliciesChanged(name.Namespace, &name)
		return nil, nil
	}
}

// topicProperties serves a topic's properties (set at creation or with
// PUT, which merges; DELETE ?key= removes one).
func topicProperties(method string) adminHandler {
	return func(rq *adminReq) (any, error) {
		name, err := rq.topic()
		if err != nil {
			return nil, err
		}
		if rq.b.Eng.PartitionCountOf(name) == 0 && !rq.b.Eng.TopicExists(name) {
			return nil, topicNotFound(name)
		}
		props := map[string]string{}
		if raw, ok := rq.b.Eng.Pol().TopicPolicy(name.Full, "properties"); ok {
			_ = json.Unmarshal(raw, &props)
		}
		switch method {
		case Get:
			return props, nil
		case Put:
			var upd map[string]string
			if err := rq.decode(&upd); err != nil {
				return nil, err
			}
			for k, v := range upd {
				props[k] = v
			}
		case Del:
			delete(props, rq.q.Get("key"))
		}
		return nil, rq.b.setTopicProperties(name, props)
	}
}

// setTopicProperties stores a topic's properties.
func (b *Web) setTopicProperties(name engine.TopicName, props map[string]string) error {
	if props == nil {
		return nil
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return err
	}
	return b.Eng.Pol().SetTopicPolicy(name.Full, "properties", raw)
}
