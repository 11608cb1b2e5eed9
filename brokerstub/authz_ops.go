package brokerstub

// The operations an admin route can be, named after Pulsar's
// TopicOperation, NamespaceOperation, TenantOperation, BrokerOperation and
// PolicyOperation, plus the checks some of Pulsar's resources make
// directly (validateSuperUserAccess, validateAdminAccessForTenant) and the
// resources it serves outside authorization. Every route of the admin API
// declares one (admin_routes.go); authorizeAdmin (authz_admin.go) decides
// from it and the route's captured tenant, namespace, topic and
// subscription alone.

// opScope is what an operation acts on, and so which check applies.
type opScope uint8

const (
	scopeNone            opScope = iota // undeclared: refused to all but super users
	scopeOpen                           // served without authentication (/metrics, /status.html)
	scopeAuthenticated                  // any authenticated role (Pulsar checks nothing more)
	scopeSuperUser                      // super users only (validateSuperUserAccess)
	scopeBroker                         // BrokerOperation: super users only
	scopeTenantAdmin                    // the tenant's admins (validateAdminAccessForTenant)
	scopeTenant                         // TenantOperation: the tenant's admins
	scopeNamespace                      // NamespaceOperation
	scopeNamespacePolicy                // PolicyOperation on a namespace policy: the tenant's admins
	scopeTopic                          // TopicOperation
	scopeTopicPolicy                    // PolicyOperation on a topic policy: the tenant's admins
)

// adminOp is one operation: its scope in the high byte, Pulsar's
// operation within the scope in the low byte.
type adminOp uint16

// scope returns the scope of op.
func (op adminOp) scope() opScope { return opScope(op >> 8) }

// String returns Pulsar's name of op (TopicOperation.PEEK_MESSAGES is
// "PEEK_MESSAGES").
func (op adminOp) String() string {
	if s, ok := adminOpNames[op]; ok {
		return s
	}
	return "UNDECLARED"
}

// The checks that are not an operation enum in Pulsar. opSuperUser is what
// a route open only to super users declares (a debugging endpoint too).
const (
	opOpen          = adminOp(scopeOpen) << 8
	opAuthenticated = adminOp(scopeAuthenticated) << 8
	opSuperUser     = adminOp(scopeSuperUser) << 8
	opTenantAdmin   = adminOp(scopeTenantAdmin) << 8
)

// BrokerOperation.
const (
	brokerList adminOp = adminOp(scopeBroker)<<8 | iota
	brokerHealthcheck
	brokerGetInternalConfig
	brokerListDynamicConfig
	brokerGetAllDynamicConfig
	brokerGetRuntimeConfig
	brokerUpdateDynamicConfig
	brokerDeleteDynamicConfig
)

// TenantOperation.
const (
	tenantCreateNamespace adminOp = adminOp(scopeTenant)<<8 | iota
	tenantDeleteNamespace
	tenantListNamespaces
)

// NamespaceOperation.
const (
	nsCreateTopic adminOp = adminOp(scopeNamespace)<<8 | iota
	nsGetTopic
	nsGetTopics
	nsDeleteTopic
	nsGetPermission
	nsGrantPermission
	nsRevokePermission
	nsClearBacklog
	nsUnsubscribe
	nsPackages
)

// PolicyOperation on a namespace's or a topic's policies.
const (
	nsPolicyRead adminOp = adminOp(scopeNamespacePolicy)<<8 | iota
	nsPolicyWrite
)

const (
	topicPolicyRead adminOp = adminOp(scopeTopicPolicy)<<8 | iota
	topicPolicyWrite
)

// TopicOperation.
const (
	topicLookup adminOp = adminOp(scopeTopic)<<8 | iota
	topicProduce
	topicConsume
	topicCompact
	topicExpireMessages
	topicOffload
	topicPeekMessages
	topicResetCursor
	topicSkip
	topicTerminate
	topicUnload
	topicSubscribe
	topicGetSubscriptions
	topicUnsubscribe
	topicGetStats
	topicGetMetadata
	topicUpdateMetadata
	topicDeleteMetadata
	topicTrimTopic
	topicGetBacklogSize
)

// adminOpNames are Pulsar's names of the operations (read only).
var adminOpNames = map[adminOp]string{
	opOpen: "OPEN", opAuthenticated: "AUTHENTICATED", opSuperUser: "SUPER_USER", opTenantAdmin: "TENANT_ADMIN",

	brokerList: "LIST", brokerHealthcheck: "HEALTHCHECK", brokerGetInternalConfig: "GET_INTERNAL_CONFIG",
	brokerListDynamicConfig: "LIST_DYNAMIC_CONFIG", brokerGetAllDynamicConfig: "GET_ALL_DYNAMIC_CONFIG",
	brokerGetRuntimeConfig: "GET_RUNTIME_CONFIG", brokerUpdateDynamicConfig: "UPDATE_DYNAMIC_CONFIG",
	brokerDeleteDynamicConfig: "DELETE_DYNAMIC_CONFIG",

	tenantCreateNamespace: "CREATE_NAMESPACE", tenantDeleteNamespace: "DELETE_NAMESPACE", tenantListNamespaces: "LIST_NAMESPACES",

	nsCreateTopic: "CREATE_TOPIC", nsGetTopic: "GET_TOPIC", nsGetTopics: "GET_TOPICS", nsDeleteTopic: "DELETE_TOPIC",
	nsGetPermission: "GET_PERMISSION", nsGrantPermission: "GRANT_PERMISSION", nsRevokePermission: "REVOKE_PERMISSION",
	nsClearBacklog: "CLEAR_BACKLOG", nsUnsubscribe: "UNSUBSCRIBE", nsPackages: "PACKAGES",

	nsPolicyRead: "READ", nsPolicyWrite: "WRITE", topicPolicyRead: "READ", topicPolicyWrite: "WRITE",

	topicLookup: "LOOKUP", topicProduce: "PRODUCE", topicConsume: "CONSUME", topicCompact: "COMPACT",
	topicExpireMessages: "EXPIRE_MESSAGES", topicOffload: "OFFLOAD", topicPeekMessages: "PEEK_MESSAGES",
	topicResetCursor: "RESET_CURSOR", topicSkip: "SKIP", topicTerminate: "TERMINATE", topicUnload: "UNLOAD",
	topicSubscribe: "SUBSCRIBE", topicGetSubscriptions: "GET_SUBSCRIPTIONS", topicUnsubscribe: "UNSUBSCRIBE",
	topicGetStats: "GET_STATS", topicGetMetadata: "GET_METADATA", topicUpdateMetadata: "UPDATE_METADATA",
	topicDeleteMetadata: "DELETE_METADATA", topicTrimTopic: "TRIM_TOPIC", topicGetBacklogSize: "GET_BACKLOG_SIZE",
}
