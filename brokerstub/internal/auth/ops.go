package auth

// The operations an admin route can be, named after Pulsar's
// TopicOperation, NamespaceOperation, TenantOperation, BrokerOperation and
// PolicyOperation, plus the checks some of Pulsar's resources make
// directly (validateSuperUserAccess, validateAdminAccessForTenant) and the
// resources it serves outside authorization. Every route of the admin API
// declares one (brokerstub/admin_routes.go); authorizeAdmin
// (brokerstub/authz_admin.go) decides
// from it and the route's captured tenant, namespace, topic and
// subscription alone.

// Scope is what an operation acts on, and so which check applies.
type Scope uint8

const (
	ScopeNone            Scope = iota // undeclared: refused to all but super users
	ScopeOpen                         // served without authentication (/metrics, /status.html)
	ScopeAuthenticated                // any authenticated role (Pulsar checks nothing more)
	ScopeSuperUser                    // super users only (validateSuperUserAccess)
	ScopeBroker                       // BrokerOperation: super users only
	ScopeTenantAdmin                  // the tenant's admins (validateAdminAccessForTenant)
	ScopeTenant                       // TenantOperation: the tenant's admins
	ScopeNamespace                    // NamespaceOperation
	ScopeNamespacePolicy              // PolicyOperation on a namespace policy: the tenant's admins
	ScopeTopic                        // TopicOperation
	ScopeTopicPolicy                  // PolicyOperation on a topic policy: the tenant's admins
)

// Op is one operation: its scope in the high byte, Pulsar's
// operation within the scope in the low byte.
type Op uint16

// Scope returns the scope of op.
func (op Op) Scope() Scope { return Scope(op >> 8) }

// String returns Pulsar's name of op (TopicOperation.PEEK_MESSAGES is
// "PEEK_MESSAGES").
func (op Op) String() string {
	if s, ok := opNames[op]; ok {
		return s
	}
	return "UNDECLARED"
}

// The checks that are not an operation enum in Pulsar. OpSuperUser is what
// a route open only to super users declares (a debugging endpoint too).
const (
	OpOpen          = Op(ScopeOpen) << 8
	OpAuthenticated = Op(ScopeAuthenticated) << 8
	OpSuperUser     = Op(ScopeSuperUser) << 8
	OpTenantAdmin   = Op(ScopeTenantAdmin) << 8
)

// BrokerOperation.
const (
	BrokerList Op = Op(ScopeBroker)<<8 | iota
	BrokerHealthcheck
	BrokerGetInternalConfig
	BrokerListDynamicConfig
	BrokerGetAllDynamicConfig
	BrokerGetRuntimeConfig
	BrokerUpdateDynamicConfig
	BrokerDeleteDynamicConfig
)

// TenantOperation.
const (
	TenantCreateNamespace Op = Op(ScopeTenant)<<8 | iota
	TenantDeleteNamespace
	TenantListNamespaces
)

// NamespaceOperation.
const (
	NsCreateTopic Op = Op(ScopeNamespace)<<8 | iota
	NsGetTopic
	NsGetTopics
	NsDeleteTopic
	NsGetPermission
	NsGrantPermission
	NsRevokePermission
	NsClearBacklog
	NsUnsubscribe
	NsPackages
)

// PolicyOperation on a namespace's or a topic's policies.
const (
	NsPolicyRead Op = Op(ScopeNamespacePolicy)<<8 | iota
	NsPolicyWrite
)

const (
	TopicPolicyRead Op = Op(ScopeTopicPolicy)<<8 | iota
	TopicPolicyWrite
)

// TopicOperation.
const (
	TopicLookup Op = Op(ScopeTopic)<<8 | iota
	TopicProduce
	TopicConsume
	TopicCompact
	TopicExpireMessages
	TopicOffload
	TopicPeekMessages
	TopicResetCursor
	TopicSkip
	TopicTerminate
	TopicUnload
	TopicSubscribe
	TopicGetSubscriptions
	TopicUnsubscribe
	TopicGetStats
	TopicGetMetadata
	TopicUpdateMetadata
	TopicDeleteMetadata
	TopicTrimTopic
	TopicGetBacklogSize
)

// opNames are Pulsar's names of the operations (read only).
var opNames = map[Op]string{
	OpOpen: "OPEN", OpAuthenticated: "AUTHENTICATED", OpSuperUser: "SUPER_USER", OpTenantAdmin: "TENANT_ADMIN",

	BrokerList: "LIST", BrokerHealthcheck: "HEALTHCHECK", BrokerGetInternalConfig: "GET_INTERNAL_CONFIG",
	BrokerListDynamicConfig: "LIST_DYNAMIC_CONFIG", BrokerGetAllDynamicConfig: "GET_ALL_DYNAMIC_CONFIG",
	BrokerGetRuntimeConfig: "GET_RUNTIME_CONFIG", BrokerUpdateDynamicConfig: "UPDATE_DYNAMIC_CONFIG",
	BrokerDeleteDynamicConfig: "DELETE_DYNAMIC_CONFIG",

	TenantCreateNamespace: "CREATE_NAMESPACE", TenantDeleteNamespace: "DELETE_NAMESPACE", TenantListNamespaces: "LIST_NAMESPACES",

	NsCreateTopic: "CREATE_TOPIC", NsGetTopic: "GET_TOPIC", NsGetTopics: "GET_TOPICS", NsDeleteTopic: "DELETE_TOPIC",
	NsGetPermission: "GET_PERMISSION", NsGrantPermission: "GRANT_PERMISSION", NsRevokePermission: "REVOKE_PERMISSION",
	NsClearBacklog: "CLEAR_BACKLOG", NsUnsubscribe: "UNSUBSCRIBE", NsPackages: "PACKAGES",

	NsPolicyRead: "READ", NsPolicyWrite: "WRITE", TopicPolicyRead: "READ", TopicPolicyWrite: "WRITE",

	TopicLookup: "LOOKUP", TopicProduce: "PRODUCE", TopicConsume: "CONSUME", TopicCompact: "COMPACT",
	TopicExpireMessages: "EXPIRE_MESSAGES", TopicOffload: "OFFLOAD", TopicPeekMessages: "PEEK_MESSAGES",
	TopicResetCursor: "RESET_CURSOR", TopicSkip: "SKIP", TopicTerminate: "TERMINATE", TopicUnload: "UNLOAD",
	TopicSubscribe: "SUBSCRIBE", TopicGetSubscriptions: "GET_SUBSCRIPTIONS", TopicUnsubscribe: "UNSUBSCRIBE",
	TopicGetStats: "GET_STATS", TopicGetMetadata: "GET_METADATA", TopicUpdateMetadata: "UPDATE_METADATA",
	TopicDeleteMetadata: "DELETE_METADATA", TopicTrimTopic: "TRIM_TOPIC", TopicGetBacklogSize: "GET_BACKLOG_SIZE",
}

// Named reports whether op is a declared operation: one with a scope and
// a name of Pulsar's.
func (op Op) Named() bool {
	_, ok := opNames[op]
	return ok && op.Scope() != ScopeNone
}
