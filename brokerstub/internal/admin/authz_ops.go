package admin

import "github.com/pulsargo/sdk/brokerstub/internal/auth"

// The operation model lives in internal/auth (ops.go: the scopes, the
// operations and their Pulsar names); these short names
// keep the route table (admin_routes.go) and the other admin files as
// they read, one line per route.

// adminOp is the operation a route declares (auth.Op).
type adminOp = auth.Op

// The operations of auth, by the names the admin files use.
const (
	opOpen                    = auth.OpOpen
	opAuthenticated           = auth.OpAuthenticated
	OpSuperUser               = auth.OpSuperUser
	opTenantAdmin             = auth.OpTenantAdmin
	brokerList                = auth.BrokerList
	brokerHealthcheck         = auth.BrokerHealthcheck
	brokerGetInternalConfig   = auth.BrokerGetInternalConfig
	brokerListDynamicConfig   = auth.BrokerListDynamicConfig
	brokerGetAllDynamicConfig = auth.BrokerGetAllDynamicConfig
	brokerGetRuntimeConfig    = auth.BrokerGetRuntimeConfig
	brokerUpdateDynamicConfig = auth.BrokerUpdateDynamicConfig
	brokerDeleteDynamicConfig = auth.BrokerDeleteDynamicConfig
	tenantCreateNamespace     = auth.TenantCreateNamespace
	tenantDeleteNamespace     = auth.TenantDeleteNamespace
	tenantListNamespaces      = auth.TenantListNamespaces
	nsCreateTopic             = auth.NsCreateTopic
	nsGetTopic                = auth.NsGetTopic
	nsGetTopics               = auth.NsGetTopics
	nsDeleteTopic             = auth.NsDeleteTopic
	nsGetPermission           = auth.NsGetPermission
	nsGrantPermission         = auth.NsGrantPermission
	nsRevokePermission        = auth.NsRevokePermission
	nsClearBacklog            = auth.NsClearBacklog
	nsUnsubscribe             = auth.NsUnsubscribe
	nsPackages                = auth.NsPackages
	nsPolicyRead              = auth.NsPolicyRead
	nsPolicyWrite             = auth.NsPolicyWrite
	topicPolicyRead           = auth.TopicPolicyRead
	topicPolicyWrite          = auth.TopicPolicyWrite
	topicLookup               = auth.TopicLookup
	topicProduce              = auth.TopicProduce
	topicConsume              = auth.TopicConsume
	topicCompact              = auth.TopicCompact
	topicExpireMessages       = auth.TopicExpireMessages
	topicOffload              = auth.TopicOffload
	TopicPeekMessages         = auth.TopicPeekMessages
	topicResetCursor          = auth.TopicResetCursor
	topicSkip                 = auth.TopicSkip
	topicTerminate            = auth.TopicTerminate
	topicUnload               = auth.TopicUnload
	topicSubscribe            = auth.TopicSubscribe
	topicGetSubscriptions     = auth.TopicGetSubscriptions
	topicUnsubscribe          = auth.TopicUnsubscribe
	topicGetStats             = auth.TopicGetStats
	topicGetMetadata          = auth.TopicGetMetadata
	topicUpdateMetadata       = auth.TopicUpdateMetadata
	topicDeleteMetadata       = auth.TopicDeleteMetadata
	topicTrimTopic            = auth.TopicTrimTopic
	topicGetBacklogSize       = auth.TopicGetBacklogSize
)
