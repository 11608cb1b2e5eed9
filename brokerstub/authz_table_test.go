package brokerstub

import "net/http"

// What each admin route needs, as Pulsar's PulsarWebResource checks and
// PulsarAuthorizationProvider decides (Pulsar 4.x), written down here
// independently of the route table: TestAdminAuthorizationByRoleAndRoute
// (authz_roles_test.go) holds the stub to it, and
// TestEveryAdminRouteDeclaresAnOperation each route's declared operation.

// routeNeed is who may use a route and what the others are answered.
type routeNeed int

const (
	needOpen           routeNeed = iota // anyone, even without credentials
	needAuthn                           // any authenticated role
	needSuper                           // super users; others 401
	needTenantAdmin401                  // the tenant's admins; others 401 (validateAdminAccessForTenant, TenantOperation, tenant-admin TopicOperations)
	needTenantAdmin403                  // the tenant's admins; others 403 (NamespaceOperation, namespace and topic policies)
	needNamespaceGrant                  // a namespace produce or consume grant (GET_TOPICS); others 403
	needLookup                          // produce or consume (LOOKUP, GET_STATS, GET_METADATA); others 401
	needProduce                         // produce; others 401
	needConsume                         // consume and the subscription's roles; others 401
)

// adminRouteRow is one admin route and Pulsar's operation for it.
type adminRouteRow struct {
	method, pattern string
	op              string // Pulsar's operation name (authz_ops.go's names)
	need            routeNeed
}

const (
	testSchemaPath = "/admin/v2/schemas/{tenant}/{ns}/{topic}"
	testTxnPath    = "/admin/v3/transactions"
)

// adminRouteTable is every admin route with its Pulsar operation.
var adminRouteTable = []adminRouteRow{
	{get, "/admin/v2/clusters", "AUTHENTICATED", needAuthn}, // ClustersBase.getClusters checks no role
	{get, "/admin/v2/clusters/{cluster}", "SUPER_USER", needSuper},
	{get, "/admin/v2/brokers", "LIST", needSuper},
	{get, "/admin/v2/brokers/health", "HEALTHCHECK", needSuper},
	{get, "/admin/v2/brokers/ready", "AUTHENTICATED", needAuthn}, // BrokersBase.isReady checks no role
	{get, "/admin/v2/brokers/leaderBroker", "SUPER_USER", needSuper},
	{get, "/admin/v2/brokers/internal-configuration", "GET_INTERNAL_CONFIG", needSuper},
	{get, "/admin/v2/brokers/configuration", "LIST_DYNAMIC_CONFIG", needSuper},
	{get, "/admin/v2/brokers/configuration/values", "GET_ALL_DYNAMIC_CONFIG", needSuper},
	{get, "/admin/v2/brokers/configuration/runtime", "GET_RUNTIME_CONFIG", needSuper},
	{post, "/admin/v2/brokers/configuration/{name}/{value}", "UPDATE_DYNAMIC_CONFIG", needSuper},
	{del, "/admin/v2/brokers/configuration/{name}", "DELETE_DYNAMIC_CONFIG", needSuper},
	{get, "/admin/v2/brokers/{cluster}", "LIST", needSuper},
	{get, "/admin/v2/tenants", "SUPER_USER", needSuper},
	{get, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{put, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{post, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{del, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},

	{get, "/admin/v2/namespaces/{tenant}", "LIST_NAMESPACES", needTenantAdmin401},
	{get, nsPath, "READ", needTenantAdmin403},
	{put, nsPath, "CREATE_NAMESPACE", needTenantAdmin401},
	{del, nsPath, "DELETE_NAMESPACE", needTenantAdmin401},
	{get, nsPath + "/topics", "GET_TOPICS", needNamespaceGrant},
	{get, nsPath + "/permissions", "GET_PERMISSION", needTenantAdmin403},
	{get, nsPath + "/permissions/subscription", "GET_PERMISSION", needTenantAdmin403},
	{post, nsPath + "/permissions/subscription/{sub}", "GRANT_PERMISSION", needTenantAdmin403},
	{del, nsPath + "/permissions/{sub}/{role}", "REVOKE_PERMISSION", needTenantAdmin403},
	{get, nsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{post, nsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{del, nsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{post, nsPath + "/permissions/{role}", "GRANT_PERMISSION", needTenantAdmin403},
	{del, nsPath + "/permissions/{role}", "REVOKE_PERMISSION", needTenantAdmin403},
	{get, nsPath + "/backlogQuotaMap", "READ", needTenantAdmin403},
	{post, nsPath + "/backlogQuota", "WRITE", needTenantAdmin403},
	{del, nsPath + "/backlogQuota", "WRITE", needTenantAdmin403},
	{put, nsPath + "/unload", "SUPER_USER", needSuper},
	{get, nsPath + "/bundles", "READ", needTenantAdmin403}, // policy BUNDLE, READ
	{get, nsPath + "/{policy}", "READ", needTenantAdmin403},
	{post, nsPath + "/{policy}", "WRITE", needTenantAdmin403},
	{put, nsPath + "/{policy}", "WRITE", needTenantAdmin403},
	{del, nsPath + "/{policy}", "WRITE", needTenantAdmin403},

	{get, "/admin/v2/non-persistent/{tenant}/{ns}", "GET_TOPICS", needNamespaceGrant},
	{get, npTopicPath + "/stats", "GET_STATS", needLookup},
	{get, npTopicPath + "/partitioned-stats", "GET_STATS", needLookup},
	{get, npTopicPath + "/lastMessageId", "PEEK_MESSAGES", needConsume},
	{post, npTopicPath + "/terminate", "TERMINATE", needTenantAdmin401},
	{post, npTopicPath + "/subscription/{sub}/skip/{n}", "SKIP", needConsume},
	{put, npTopicPath + "/subscription/{sub}", "SUBSCRIBE", needConsume},

	{get, "/admin/v2/{domain}/{tenant}/{ns}", "GET_TOPICS", needNamespaceGrant},
	{get, "/admin/v2/{domain}/{tenant}/{ns}/partitioned", "GET_TOPICS", needNamespaceGrant},
	{put, topicPath, "CREATE_TOPIC", needTenantAdmin403},
	{del, topicPath, "DELETE_TOPIC", needTenantAdmin403},
	{get, topicPath + "/partitions", "LOOKUP", needLookup},
	{put, topicPath + "/partitions", "CREATE_TOPIC", needTenantAdmin403},
	{post, topicPath + "/partitions", "WRITE", needTenantAdmin403}, // PolicyName.PARTITION
	{del, topicPath + "/partitions", "DELETE_TOPIC", needTenantAdmin403},
	{get, topicPath + "/stats", "GET_STATS", needLookup},
	{get, topicPath + "/partitioned-stats", "GET_STATS", needLookup},
	{get, topicPath + "/internalStats", "GET_STATS", needLookup},
	{put, topicPath + "/unload", "UNLOAD", needTenantAdmin401},
	{post, topicPath + "/terminate", "TERMINATE", needTenantAdmin401},
	{put, topicPath + "/compaction", "COMPACT", needTenantAdmin401},
	{get, topicPath + "/compaction", "COMPACT", needTenantAdmin401},
	{get, topicPath + "/lastMessageId", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/messageid/{timestamp}", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/subscriptions", "GET_SUBSCRIPTIONS", needConsume},
	{get, topicPath + "/examinemessage", "PEEK_MESSAGES", needConsume},
	{get, topicPath + "/ledger/{ledger}/entry/{entry}", "PEEK_MESSAGES", needConsume},
	{post, topicPath + "/all_subscription/expireMessages/{seconds}", "EXPIRE_MESSAGES", needConsume},
	{put, subPath, "SUBSCRIBE", needConsume},
	{del, subPath, "UNSUBSCRIBE", needConsume},
	{post, subPath + "/resetcursor", "RESET_CURSOR", needConsume},
	{post, subPath + "/resetcursor/{timestamp}", "RESET_CURSOR", needConsume},
	{post, subPath + "/skip/{n}", "SKIP", needConsume},
	{post, subPath + "/skip_all", "SKIP", needConsume},
	{post, subPath + "/expireMessages", "EXPIRE_MESSAGES", needConsume},
	{post, subPath + "/expireMessages/{seconds}", "EXPIRE_MESSAGES", needConsume},
	{get, subPath + "/position/{n}", "PEEK_MESSAGES", needConsume},
	{post, subPath + "/analyzeBacklog", "CONSUME", needConsume}, // PersistentTopicsBase.internalAnalyzeSubscriptionBacklog

	// PackagesBase.checkPermissions: the tenant's admins or a namespace
	// "packages" grant (none of the fixture's roles has one); others 401.
	{get, "/admin/v3/packages/{type}/{tenant}/{ns}", "PACKAGES", needTenantAdmin401},
	{get, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}", "PACKAGES", needTenantAdmin401},
	{get, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}/metadata", "PACKAGES", needTenantAdmin401},
	{put, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}/metadata", "PACKAGES", needTenantAdmin401},
	{post, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}", "PACKAGES", needTenantAdmin401},
	{get, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}", "PACKAGES", needTenantAdmin401},
	{del, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}", "PACKAGES", needTenantAdmin401},
	{get, topicPath + "/permissions", "TENANT_ADMIN", needTenantAdmin401},
	{post, topicPath + "/permissions/{role}", "TENANT_ADMIN", needTenantAdmin401},
	{del, topicPath + "/permissions/{role}", "TENANT_ADMIN", needTenantAdmin401},
	{get, topicPath + "/properties", "GET_METADATA", needLookup},
	{put, topicPath + "/properties", "UPDATE_METADATA", needTenantAdmin401},
	{del, topicPath + "/properties", "DELETE_METADATA", needTenantAdmin401},
	{get, topicPath + "/{policy}", "READ", needTenantAdmin403},
	{post, topicPath + "/{policy}", "WRITE", needTenantAdmin403},
	{put, topicPath + "/{policy}", "WRITE", needTenantAdmin403},
	{del, topicPath + "/{policy}", "WRITE", needTenantAdmin403},

	{get, "/lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}", "LOOKUP", needLookup},
	{get, testSchemaPath + "/schema", "GET_METADATA", needLookup},
	{post, testSchemaPath + "/schema", "PRODUCE", needProduce},
	{del, testSchemaPath + "/schema", "TENANT_ADMIN", needTenantAdmin401},
	{get, testSchemaPath + "/schema/{version}", "GET_METADATA", needLookup},
	{get, testSchemaPath + "/schemas", "GET_METADATA", needLookup},
	{post, testSchemaPath + "/compatibility", "TENANT_ADMIN", needTenantAdmin401},
	{post, testSchemaPath + "/version", "GET_METADATA", needLookup},
	{get, testTxnPath + "/coordinatorStats", "AUTHENTICATED", needAuthn},
	{get, testTxnPath + "/transactionMetadata/{most}/{least}", "AUTHENTICATED", needAuthn},
	{get, testTxnPath + "/transactionInBufferStats/{tenant}/{ns}/{topic}/{most}/{least}", "AUTHENTICATED", needAuthn},
	{get, testTxnPath + "/transactionInPendingAckStats/{tenant}/{ns}/{topic}/{sub}/{most}/{least}", "AUTHENTICATED", needAuthn},
	{get, "/metrics", "OPEN", needOpen},
	{get, "/status.html", "OPEN", needOpen},
	{get, "/debug/pprof", "SUPER_USER", needSuper},
	{get, "/debug/pprof/{profile}", "SUPER_USER", needSuper},
	{post, "/debug/pprof/symbol", "SUPER_USER", needSuper},
	// The console (console.go): not Pulsar's, decided as its admin API
	// decides the operation each view is.
	{get, "/console", "OPEN", needOpen},
	{get, "/console/{asset}", "OPEN", needOpen},
	{get, "/console/api/whoami", "AUTHENTICATED", needAuthn},
	{get, "/console/api/overview", "AUTHENTICATED", needAuthn},
	{get, "/console/api/topic/{domain}/{tenant}/{ns}/{topic}", "GET_STATS", needLookup},
	{get, "/console/api/cursor/{domain}/{tenant}/{ns}/{topic}/{sub}", "PEEK_MESSAGES", needConsume},
	{get, "/console/api/keyshared/{domain}/{tenant}/{ns}/{topic}/{sub}", "PEEK_MESSAGES", needConsume},
	{get, "/console/api/messages/{domain}/{tenant}/{ns}/{topic}", "PEEK_MESSAGES", needConsume},
}

// The roles of the table test: no credentials at all, an authenticated
// role with no grant, namespace grants, the tenant's admin, a super user.
const (
	roleNone     = ""
	roleNobody   = "nobody"
	roleProducer = "producer"
	roleConsumer = "consumer"
	roleProdCons = "prodcons"
	roleTenant   = "tadmin"
	roleSuper    = "admin"
)

var testAdminRoles = []string{roleNone, roleNobody, roleProducer, roleConsumer, roleProdCons, roleTenant, roleSuper}

// allows reports whether need lets role in; lockedSub says the request
// names a subscription whose namespace grants it to another role only.
func (n routeNeed) allows(role string, lockedSub bool) bool {
	switch {
	case n == needOpen:
		return true
	case role == roleNone:
		return false
	case n == needAuthn, role == roleSuper:
		return true
	case n == needSuper:
		return false
	case role == roleTenant:
		return true
	}
	switch n {
	case needNamespaceGrant, needLookup:
		return role != roleNobody
	case needProduce:
		return role == roleProducer || role == roleProdCons
	case needConsume:
		return (role == roleConsumer || role == roleProdCons) && !lockedSub
	}
	return false
}

// refusal is the status the others get.
func (n routeNeed) refusal() int {
	switch n {
	case needTenantAdmin403, needNamespaceGrant:
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}
