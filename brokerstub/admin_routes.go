package brokerstub

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

const (
	get, put, post, del = http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete
	topicPath           = "/admin/v2/{domain}/{tenant}/{ns}/{topic}"
	subPath             = topicPath + "/subscription/{sub}"
	nsPath              = "/admin/v2/namespaces/{tenant}/{ns}"
)

// register lists every route, one a line: method, pattern, the Pulsar
// operation it is (authz_ops.go; it alone decides who may use the route)
// and handler. Literal segments come before captures that could match
// them.
func (a *adminServer) register() {
	a.add(get, "/admin/v2/clusters", opAuthenticated, getClusters)
	a.add(get, "/admin/v2/clusters/{cluster}", opSuperUser, getCluster)
	a.add(get, "/admin/v2/brokers", brokerList, getBrokers)
	a.add(get, "/admin/v2/brokers/health", brokerHealthcheck, healthCheck)
	a.add(get, "/admin/v2/brokers/ready", opAuthenticated, healthCheck)
	a.add(get, "/admin/v2/brokers/leaderBroker", opSuperUser, getLeaderBroker)
	a.add(get, "/admin/v2/brokers/internal-configuration", brokerGetInternalConfig, getInternalConfig)
	a.add(get, "/admin/v2/brokers/configuration", brokerListDynamicConfig, getDynamicNames)
	a.add(get, "/admin/v2/brokers/configuration/values", brokerGetAllDynamicConfig, getDynamicValues)
	a.add(get, "/admin/v2/brokers/configuration/runtime", brokerGetRuntimeConfig, getRuntimeConfig)
	a.add(post, "/admin/v2/brokers/configuration/{name}/{value}", brokerUpdateDynamicConfig, setDynamicConfig)
	a.add(del, "/admin/v2/brokers/configuration/{name}", brokerDeleteDynamicConfig, deleteDynamicConfig)
	a.add(get, "/admin/v2/brokers/{cluster}", brokerList, getBrokers)
	a.add(get, "/admin/v2/tenants", opSuperUser, getTenants)
	a.add(get, "/admin/v2/tenants/{tenant}", opSuperUser, getTenant)
	a.add(put, "/admin/v2/tenants/{tenant}", opSuperUser, putTenant)
	a.add(post, "/admin/v2/tenants/{tenant}", opSuperUser, postTenant)
	a.add(del, "/admin/v2/tenants/{tenant}", opSuperUser, deleteTenant)

	a.add(get, "/admin/v2/namespaces/{tenant}", tenantListNamespaces, getNamespaces)
	a.add(get, nsPath, nsPolicyRead, getNamespace)
	a.add(put, nsPath, tenantCreateNamespace, putNamespace)
	a.add(del, nsPath, tenantDeleteNamespace, deleteNamespace)
	a.add(get, nsPath+"/topics", nsGetTopics, getNamespaceTopics)
	a.add(get, nsPath+"/permissions", nsGetPermission, getPermissions)
	a.add(get, nsPath+"/permissions/subscription", nsGetPermission, getSubPermissions)
	a.add(post, nsPath+"/permissions/subscription/{sub}", nsGrantPermission, grantSubPermission)
	a.add(del, nsPath+"/permissions/{sub}/{role}", nsRevokePermission, revokeSubPermission)
	a.add(get, nsPath+"/persistence/bookieAffinity", opSuperUser, bookieAffinity(get))
	a.add(post, nsPath+"/persistence/bookieAffinity", opSuperUser, bookieAffinity(post))
	a.add(del, nsPath+"/persistence/bookieAffinity", opSuperUser, bookieAffinity(del))
	a.add(post, nsPath+"/permissions/{role}", nsGrantPermission, grantPermission)
	a.add(del, nsPath+"/permissions/{role}", nsRevokePermission, revokePermission)
	a.add(get, nsPath+"/backlogQuotaMap", nsPolicyRead, getBacklogQuotaMap)
	a.add(post, nsPath+"/backlogQuota", nsPolicyWrite, setBacklogQuota(false))
	a.add(del, nsPath+"/backlogQuota", nsPolicyWrite, setBacklogQuota(true))
	a.add(put, nsPath+"/unload", opSuperUser, unloadNamespace)
	a.add(get, nsPath+"/bundles", nsPolicyRead, getBundles) // admin_bundles.go
	a.add(get, nsPath+"/{policy}", nsPolicyRead, namespacePolicy(get))
	a.add(post, nsPath+"/{policy}", nsPolicyWrite, namespacePolicy(post))
	a.add(put, nsPath+"/{policy}", nsPolicyWrite, namespacePolicy(post))
	a.add(del, nsPath+"/{policy}", nsPolicyWrite, namespacePolicy(del))

	a.registerNonPersistent() // admin_nonpersistent.go: before the {domain} routes
	a.add(get, "/admin/v2/{domain}/{tenant}/{ns}", nsGetTopics, listTopics)
	a.add(get, "/admin/v2/{domain}/{tenant}/{ns}/partitioned", nsGetTopics, listPartitionedTopics)
	a.add(put, topicPath, nsCreateTopic, putTopic)
	a.add(del, topicPath, nsDeleteTopic, deleteTopicHandler)
	a.add(get, topicPath+"/partitions", topicLookup, getPartitions)
	a.add(put, topicPath+"/partitions", nsCreateTopic, putPartitions)
	a.add(post, topicPath+"/partitions", topicPolicyWrite, postPartitions)
	a.add(del, topicPath+"/partitions", nsDeleteTopic, deletePartitions)
	a.add(get, topicPath+"/stats", topicGetStats, getTopicStats)
	a.add(get, topicPath+"/partitioned-stats", topicGetStats, partitionedStats)
	a.add(get, topicPath+"/internalStats", topicGetStats, getInternalStats)
	a.add(put, topicPath+"/unload", topicUnload, unloadTopic)
	a.add(post, topicPath+"/terminate", topicTerminate, terminateTopic)
	a.add(put, topicPath+"/compaction", topicCompact, triggerCompaction)  // admin_compaction.go
	a.add(get, topicPath+"/compaction", topicCompact, compactionStatusOf) // before {policy}
	a.add(get, topicPath+"/lastMessageId", topicPeekMessages, lastMessageID)
	a.add(get, topicPath+"/messageid/{timestamp}", topicPeekMessages, messageIDByTime)
	a.add(get, topicPath+"/subscriptions", topicGetSubscriptions, listSubscriptions)
	a.add(get, topicPath+"/examinemessage", topicPeekMessages, examineMessage)
	a.add(get, topicPath+"/ledger/{ledger}/entry/{entry}", topicPeekMessages, getEntry)
	a.add(post, topicPath+"/all_subscription/expireMessages/{seconds}", topicExpireMessages, expireAllSubscriptions)
	a.add(put, subPath, topicSubscribe, createSubscription)
	a.add(del, subPath, topicUnsubscribe, deleteSubscription)
	a.add(post, subPath+"/resetcursor", topicResetCursor, resetCursorByID)
	a.add(post, subPath+"/resetcursor/{timestamp}", topicResetCursor, resetCursorByTime)
	a.add(post, subPath+"/skip/{n}", topicSkip, skipMessages)
	a.add(post, subPath+"/skip_all", topicSkip, skipAll)
	a.add(post, subPath+"/expireMessages", topicExpireMessages, expireByID)
	a.add(post, subPath+"/expireMessages/{seconds}", topicExpireMessages, expireMessages)
	a.add(get, subPath+"/position/{n}", topicPeekMessages, peekMessage)
	a.add(post, subPath+"/analyzeBacklog", topicConsume, analyzeBacklog)
	a.registerTopicPermissions() // admin_topic_permissions.go: before {policy}
	a.add(get, topicPath+"/properties", topicGetMetadata, topicProperties(get))
	a.add(put, topicPath+"/properties", topicUpdateMetadata, topicProperties(put))
	a.add(del, topicPath+"/properties", topicDeleteMetadata, topicProperties(del))
	a.add(get, topicPath+"/{policy}", topicPolicyRead, topicPolicy(get))
	a.add(post, topicPath+"/{policy}", topicPolicyWrite, topicPolicy(post))
	a.add(put, topicPath+"/{policy}", topicPolicyWrite, topicPolicy(post))
	a.add(del, topicPath+"/{policy}", topicPolicyWrite, topicPolicy(del))

	a.add(get, "/lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}", topicLookup, lookupTopic)
	const schemaPath = "/admin/v2/schemas/{tenant}/{ns}/{topic}"
	a.add(get, schemaPath+"/schema", topicGetMetadata, persistentDomain(getSchema))
	a.add(post, schemaPath+"/schema", topicProduce, persistentDomain(postSchema))
	a.add(del, schemaPath+"/schema", opTenantAdmin, persistentDomain(deleteSchema))
	a.add(get, schemaPath+"/schema/{version}", topicGetMetadata, persistentDomain(getSchema))
	a.add(get, schemaPath+"/schemas", topicGetMetadata, persistentDomain(getAllSchemas))
	a.add(post, schemaPath+"/compatibility", opTenantAdmin, persistentDomain(testSchemaCompatibility))
	a.add(post, schemaPath+"/version", topicGetMetadata, persistentDomain(getSchemaVersion))
	a.registerTransactions()    // admin_transactions.go
	a.registerFunctionsWorker() // admin_functions.go
	a.registerPackages()        // admin_packages.go
	a.add(get, "/metrics", opOpen, getMetrics)
	a.registerPprof()   // admin_pprof.go: answered only with Options.Profiling
	a.registerConsole() // console.go: only with Options.Console
	a.add(get, "/status.html", opOpen, func(*adminReq) (any, error) { return rawReply{contentType: "text/plain", body: []byte("OK")}, nil })
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
	if rq.b.eng.PartitionCountOf(name) > 0 {
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
	err = rq.onTopic(name, func(t *engine.Topic) {
		pos := t.Led.FindByPublishTime(uint64(max(ts, 0)))
		if _, ok := t.Led.Get(pos); ok {
			found = true
			id = engine.MessageIDJSON{LedgerID: pos.Ledger, EntryID: pos.Entry, PartitionIndex: t.Name.Partition}
		}
	})
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
	n := rq.b.eng.PartitionCountOf(name)
	if n == 0 {
		return nil, engine.RestErr(http.StatusNotFound, "Partitioned Topic not found: %s", name.Full)
	}
	total := &engine.PartitionedTopicStats{Metadata: engine.PartitionedMetadata{Partitions: n}, Partitions: map[string]*engine.TopicStats{}}
	parts := map[string]*engine.TopicStats{}
	var pubs [][]*engine.PublisherStats
	loaded := false
	err = rq.forEachPartition(name, false, func(t *engine.Topic) error {
		st := t.Stats(rq.statsOptions())
		parts[t.Name.Full] = st
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
	total.Publishers = mergePublishers(pubs) // admin_stats_publishers.go
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
	for _, full := range rq.b.eng.NamespaceTopics(ns, "ALL") {
		if err := rq.b.eng.Unload(full); err != nil {
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
		if err := rq.b.eng.RefuseTopicPolicies(); err != nil { // tenant_limits.go
			return nil, err
		}
		if rq.b.eng.PartitionCountOf(name) == 0 && !rq.b.eng.TopicExists(name) {
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
					if v, ok := rq.b.eng.Pol().TopicPolicy(name.Full, "backlogQuota/"+t); ok {
						out[t] = v
					}
				}
				return out, nil
			}
			field += "/" + typ
		}
		switch method {
		case get:
			if v, ok := rq.b.eng.Pol().TopicPolicy(name.Full, field); ok {
				return v, nil
			}
			// applied=true: the value in effect, from the namespace.
			if nsField, ok := engine.TopicToNamespacePolicy[field]; ok && rq.flag("applied") {
				if v, ok, _ := rq.b.eng.Pol().NamespacePolicy(name.Namespace, nsField); ok {
					return v, nil
				}
			}
			return nil, nil
		case del:
			err := rq.b.eng.Pol().SetTopicPolicy(name.Full, field, nil)
			if err == nil {
				rq.b.eng.PoliciesChanged(name.Namespace, &name) // dedup.go
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
		if err := rq.b.eng.Pol().SetTopicPolicy(name.Full, field, v); err != nil {
			return nil, err
		}
		rq.b.eng.PoliciesChanged(name.Namespace, &name)
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
		if rq.b.eng.PartitionCountOf(name) == 0 && !rq.b.eng.TopicExists(name) {
			return nil, topicNotFound(name)
		}
		props := map[string]string{}
		if raw, ok := rq.b.eng.Pol().TopicPolicy(name.Full, "properties"); ok {
			_ = json.Unmarshal(raw, &props)
		}
		switch method {
		case get:
			return props, nil
		case put:
			var upd map[string]string
			if err := rq.decode(&upd); err != nil {
				return nil, err
			}
			for k, v := range upd {
				props[k] = v
			}
		case del:
			delete(props, rq.q.Get("key"))
		}
		return nil, rq.b.setTopicProperties(name, props)
	}
}

// setTopicProperties stores a topic's properties.
func (b *web) setTopicProperties(name engine.TopicName, props map[string]string) error {
	if props == nil {
		return nil
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return err
	}
	return b.eng.Pol().SetTopicPolicy(name.Full, "properties", raw)
}
