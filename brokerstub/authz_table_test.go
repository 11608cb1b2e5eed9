package brokerstub

import (
	"net/http"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
)

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
	{admin.Get, "/admin/v2/clusters", "AUTHENTICATED", needAuthn}, // ClustersBase.getClusters checks no role
	{admin.Get, "/admin/v2/clusters/{cluster}", "SUPER_USER", needSuper},
	{admin.Get, "/admin/v2/brokers", "LIST", needSuper},
	{admin.Get, "/admin/v2/brokers/health", "HEALTHCHECK", needSuper},
	{admin.Get, "/admin/v2/brokers/ready", "AUTHENTICATED", needAuthn}, // BrokersBase.isReady checks no role
	{admin.Get, "/admin/v2/brokers/leaderBroker", "SUPER_USER", needSuper},
	{admin.Get, "/admin/v2/brokers/internal-configuration", "GET_INTERNAL_CONFIG", needSuper},
	{admin.Get, "/admin/v2/brokers/configuration", "LIST_DYNAMIC_CONFIG", needSuper},
	{admin.Get, "/admin/v2/brokers/configuration/values", "GET_ALL_DYNAMIC_CONFIG", needSuper},
	{admin.Get, "/admin/v2/brokers/configuration/runtime", "GET_RUNTIME_CONFIG", needSuper},
	{admin.Post, "/admin/v2/brokers/configuration/{name}/{value}", "UPDATE_DYNAMIC_CONFIG", needSuper},
	{admin.Del, "/admin/v2/brokers/configuration/{name}", "DELETE_DYNAMIC_CONFIG", needSuper},
	{admin.Get, "/admin/v2/brokers/{cluster}", "LIST", needSuper},
	{admin.Get, "/admin/v2/tenants", "SUPER_USER", needSuper},
	{admin.Get, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{admin.Put, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{admin.Post, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},
	{admin.Del, "/admin/v2/tenants/{tenant}", "SUPER_USER", needSuper},

	{admin.Get, "/admin/v2/namespaces/{tenant}", "LIST_NAMESPACES", needTenantAdmin401},
	{admin.Get, admin.NsPath, "READ", needTenantAdmin403},
	{admin.Put, admin.NsPath, "CREATE_NAMESPACE", needTenantAdmin401},
	{admin.Del, admin.NsPath, "DELETE_NAMESPACE", needTenantAdmin401},
	{admin.Get, admin.NsPath + "/topics", "GET_TOPICS", needNamespaceGrant},
	{admin.Get, admin.NsPath + "/permissions", "GET_PERMISSION", needTenantAdmin403},
	{admin.Get, admin.NsPath + "/permissions/subscription", "GET_PERMISSION", needTenantAdmin403},
	{admin.Post, admin.NsPath + "/permissions/subscription/{sub}", "GRANT_PERMISSION", needTenantAdmin403},
	{admin.Del, admin.NsPath + "/permissions/{sub}/{role}", "REVOKE_PERMISSION", needTenantAdmin403},
	{admin.Get, admin.NsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{admin.Post, admin.NsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{admin.Del, admin.NsPath + "/persistence/bookieAffinity", "SUPER_USER", needSuper},
	{admin.Post, admin.NsPath + "/permissions/{role}", "GRANT_PERMISSION", needTenantAdmin403},
	{admin.Del, admin.NsPath + "/permissions/{role}", "REVOKE_PERMISSION", needTenantAdmin403},
	{admin.Get, admin.NsPath + "/backlogQuotaMap", "READ", needTenantAdmin403},
	{admin.Post, admin.NsPath + "/backlogQuota", "WRITE", needTenantAdmin403},
	{admin.Del, admin.NsPath + "/backlogQuota", "WRITE", needTenantAdmin403},
	{admin.Put, admin.NsPath + "/unload", "SUPER_USER", needSuper},
	{admin.Get, admin.NsPath + "/bundles", "READ", needTenantAdmin403}, // policy BUNDLE, READ
	{admin.Get, admin.NsPath + "/{policy}", "READ", needTenantAdmin403},
	{admin.Post, admin.NsPath + "/{policy}", "WRITE", needTenantAdmin403},
	{admin.Put, admin.NsPath + "/{policy}", "WRITE", needTenantAdmin403},
	{admin.Del, admin.NsPath + "/{policy}", "WRITE", needTenantAdmin403},

	{admin.Get, "/admin/v2/non-persistent/{tenant}/{ns}", "GET_TOPICS", needNamespaceGrant},
	{admin.Get, admin.NpTopicPath + "/stats", "GET_STATS", needLookup},
	{admin.Get, admin.NpTopicPath + "/partitioned-stats", "GET_STATS", needLookup},
	{admin.Get, admin.NpTopicPath + "/lastMessageId", "PEEK_MESSAGES", needConsume},
	{admin.Post, admin.NpTopicPath + "/terminate", "TERMINATE", needTenantAdmin401},
	{admin.Post, admin.NpTopicPath + "/subscription/{sub}/skip/{n}", "SKIP", needConsume},
	{admin.Put, admin.NpTopicPath + "/subscription/{sub}", "SUBSCRIBE", needConsume},

	{admin.Get, "/admin/v2/{domain}/{tenant}/{ns}", "GET_TOPICS", needNamespaceGrant},
	{admin.Get, "/admin/v2/{domain}/{tenant}/{ns}/partitioned", "GET_TOPICS", needNamespaceGrant},
	{admin.Put, admin.TopicPath, "CREATE_TOPIC", needTenantAdmin403},
	{admin.Del, admin.TopicPath, "DELETE_TOPIC", needTenantAdmin403},
	{admin.Get, admin.TopicPath + "/partitions", "LOOKUP", needLookup},
	{admin.Put, admin.TopicPath + "/partitions", "CREATE_TOPIC", needTenantAdmin403},
	{admin.Post, admin.TopicPath + "/partitions", "WRITE", needTenantAdmin403}, // PolicyName.PARTITION
	{admin.Del, admin.TopicPath + "/partitions", "DELETE_TOPIC", needTenantAdmin403},
	{admin.Get, admin.TopicPath + "/stats", "GET_STATS", needLookup},
	{admin.Get, admin.TopicPath + "/partitioned-stats", "GET_STATS", needLookup},
	{admin.Get, admin.TopicPath + "/internalStats", "GET_STATS", needLookup},
	{admin.Put, admin.TopicPath + "/unload", "UNLOAD", needTenantAdmin401},
	{admin.Post, admin.TopicPath + "/terminate", "TERMINATE", needTenantAdmin401},
	{admin.Put, admin.TopicPath + "/compaction", "COMPACT", needTenantAdmin401},
	{admin.Get, admin.TopicPath + "/compaction", "COMPACT", needTenantAdmin401},
	{admin.Get, admin.TopicPath + "/lastMessageId", "PEEK_MESSAGES", needConsume},
	{admin.Get, admin.TopicPath + "/messageid/{timestamp}", "PEEK_MESSAGES", needConsume},
	{admin.Get, admin.TopicPath + "/subscriptions", "GET_SUBSCRIPTIONS", needConsume},
	{admin.Get, admin.TopicPath + "/examinemessage", "PEEK_MESSAGES", needConsume},
	{admin.Get, admin.TopicPath + "/ledger/{ledger}/entry/{entry}", "PEEK_MESSAGES", needConsume},
	{admin.Post, admin.TopicPath + "/all_subscription/expireMessages/{seconds}", "EXPIRE_MESSAGES", needConsume},
	{admin.Put, admin.SubPath, "SUBSCRIBE", needConsume},
	{admin.Del, admin.SubPath, "UNSUBSCRIBE", needConsume},
	{admin.Post, admin.SubPath + "/resetcursor", "RESET_CURSOR", needConsume},
	{admin.Post, admin.SubPath + "/resetcursor/{timestamp}", "RESET_CURSOR", needConsume},
	{admin.Post, admin.SubPath + "/skip/{n}", "SKIP", needConsume},
	{admin.Post, admin.SubPath + "/skip_all", "SKIP", needConsume},
	{admin.Post, admin.SubPath + "/expireMessages", "EXPIRE_MESSAGES", needConsume},
	{admin.Post, admin.SubPath + "/expireMessages/{seconds}", "EXPIRE_MESSAGES", needConsume},
	{admin.Get, admin.SubPath + "/position/{n}", "PEEK_MESSAGES", needConsume},
	{admin.Post, admin.SubPath + "/analyzeBacklog", "CONSUME", needConsume}, // PersistentTopicsBase.internalAnalyzeSubscriptionBacklog

	// PackagesBase.checkPermissions: the tenant's admins or a namespace
	// "packages" grant (none of the fixture's roles has one); others 401.
	{admin.Get, "/admin/v3/packages/{type}/{tenant}/{ns}", "PACKAGES", needTenantAdmin401},
	{admin.Get, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}", "PACKAGES", needTenantAdmin401},
	{admin.Get, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}/metadata", "PACKAGES", needTenantAdmin401},
	{admin.Put, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}/metadata", "PACKAGES", needTenantAdmin401},
	{admin.Post, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}", "PACKAGES", needTenantAdmin401},
	{admin.Get, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}", "PACKAGES", needTenantAdmin401},
	{admin.Del, "/admin/v3/packages/{type}/{tenant}/{ns}/{pkg}/{version}", "PACKAGES", needTenantAdmin401},
	{admin.Get, admin.TopicPath + "/permissions", "TENANT_ADMIN", needTenantAdmin401},
	{admin.Post, admin.TopicPath + "/permissions/{role}", "TENANT_ADMIN", needTenantAdmin401},
	{admin.Del, admin.TopicPath + "/permissions/{role}", "TENANT_ADMIN", needTenantAdmin401},
	{admin.Get, admin.TopicPath + "/properties", "GET_METADATA", needLookup},
	{admin.Put, admin.TopicPath + "/properties", "UPDATE_METADATA", needTenantAdmin401},
	{admin.Del, admin.TopicPath + "/properties", "DELETE_METADATA", needTenantAdmin401},
	{admin.Get, admin.TopicPath + "/{policy}", "READ", needTenantAdmin403},
	{admin.Post, admin.TopicPath + "/{policy}", "WRITE", needTenantAdmin403},
	{admin.Put, admin.TopicPath + "/{policy}", "WRITE", needTenantAdmin403},
	{admin.Del, admin.TopicPath + "/{policy}", "WRITE", needTenantAdmin403},

	{admin.Get, "/lookup/v2/topic/{domain}/{tenant}/{ns}/{topic}", "LOOKUP", needLookup},
	{admin.Get, testSchemaPath + "/schema", "GET_METADATA", needLookup},
	{admin.Post, testSchemaPath + "/schema", "PRODUCE", needProduce},
	{admin.Del, testSchemaPath + "/schema", "TENANT_ADMIN", needTenantAdmin401},
	{admin.Get, testSchemaPath + "/schema/{version}", "GET_METADATA", needLookup},
	{admin.Get, testSchemaPath + "/schemas", "GET_METADATA", needLookup},
	{admin.Post, testSchemaPath + "/compatibility", "TENANT_ADMIN", needTenantAdmin401},
	{admin.Post, testSchemaPath + "/version", "GET_METADATA", needLookup},
	{admin.Get, testTxnPath + "/coordinatorStats", "AUTHENTICATED", needAuthn},
	{admin.Get, testTxnPath + "/transactionMetadata/{most}/{least}", "AUTHENTICATED", needAuthn},
	{admin.Get, testTxnPath + "/transactionInBufferStats/{tenant}/{ns}/{topic}/{most}/{least}", "AUTHENTICATED", needAuthn},
	{admin.Get, testTxnPath + "/transactionInPendingAckStats/{tenant}/{ns}/{topic}/{sub}/{most}/{least}", "AUTHENTICATED", needAuthn},
	{admin.Get, "/metrics", "OPEN", needOpen},
	{admin.Get, "/status.html", "OPEN", needOpen},
	{admin.Get, "/debug/pprof", "SUPER_USER", needSuper},
	{admin.Get, "/debug/pprof/{profile}", "SUPER_USER", needSuper},
	{admin.Post, "/debug/pprof/symbol", "SUPER_USER", needSuper},
	// The console (console.go): not Pulsar's, decided as its admin API
	// decides the operation each view is.
	{admin.Get, "/console", "OPEN", needOpen},
	{admin.Get, "/console/{asset}", "OPEN", needOpen},
	{admin.Get, "/console/api/whoami", "AUTHENTICATED", needAuthn},
	{admin.Get, "/console/api/overview", "AUTHENTICATED", needAuthn},
	{admin.Get, "/console/api/topic/{domain}/{tenant}/{ns}/{topic}", "GET_STATS", needLookup},
	{admin.Get, "/console/api/cursor/{domain}/{tenant}/{ns}/{topic}/{sub}", "PEEK_MESSAGES", needConsume},
	{admin.Get, "/console/api/keyshared/{domain}/{tenant}/{ns}/{topic}/{sub}", "PEEK_MESSAGES", needConsume},
	{admin.Get, "/console/api/messages/{domain}/{tenant}/{ns}/{topic}", "PEEK_MESSAGES", needConsume},
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
