package brokerstub

import (
	"crypto/tls"
	"log/slog"
	"time"
)

// Options configure a Broker. The zero value is a usable in-memory broker on
// a random loopback port.
type Options struct {
	// Addr is the TCP address to listen on. Default "127.0.0.1:0" (a free
	// port). Restart listens on the same address again.
	Addr string
	// NoListener, when set, opens no TCP listener: the broker serves only
	// the in-memory connections of Dial, and URL and lookups name the
	// placeholder address "brokerstub.invalid:6650" (a client dials it
	// through ClientOptions.Dialer = Broker.Dial). This is for tests under
	// testing/synctest, where a goroutine blocked on a real socket keeps the
	// bubble's fake clock from advancing. Default false.
	NoListener bool
	// DisableBrokerServicePort opens no plain binary listener (Pulsar's
	// brokerServicePort set empty): clients connect to the TLS port
	// (TLSAddr) or through Dial only, and URL and lookups name the TLS
	// port. Default false.
	DisableBrokerServicePort bool
	// HTTPAddr is the TCP address of the admin REST API, HTTP lookups and
	// /metrics (Pulsar's webServicePort). Default "127.0.0.1:0" (a free
	// port; see Broker.WebServiceURL). It stays open across Restart and
	// Crash. No HTTP listener is opened with NoListener (see
	// Broker.AdminHandler).
	HTTPAddr string
	// Profiling serves Go's net/http/pprof profiles under /debug/pprof/ on
	// the HTTP port (cmd/brokerstub -pprof), for an operator who needs to
	// tell a leak from a working set. With authorization on, only a
	// super-user may read them. Default false: not served.
	Profiling bool
	// Console serves the web console at /console on the HTTP port: live
	// pages of tenants, topics, subscriptions and their cursors, Key_Shared
	// dispatchers and stored messages (docs/console.md). It is an admin
	// client: with authorization on, each page needs what the admin API
	// would (super-user or the operation's permission). It costs nothing
	// while no page is open. Default false (cmd/brokerstub turns it on).
	Console bool
	// DisableWebServicePort opens no plain HTTP listener (Pulsar's
	// webServicePort set empty); the admin REST API is then served on
	// WebServiceTLSAddr only, or not at all (see Broker.AdminHandler).
	// Default false.
	DisableWebServicePort bool
	// AdvertisedAddress is the host that URL, WebServiceURL and lookups name
	// instead of the host the listeners are bound to (Pulsar's
	// advertisedAddress), for a broker bound to 0.0.0.0. Default "": the
	// bound host.
	AdvertisedAddress string
	// AdvertisedListeners are the listener names lookups may ask for and
	// the URLs each is answered with (Pulsar's advertisedListeners): a
	// LOOKUP's advertised_listener_name (else the listener of the port the
	// connection came in on, else the internal listener), an HTTP lookup's
	// listenerName parameter or X-Pulsar-ListenerName header. A name the
	// broker does not advertise is refused with ServiceNotReady "the broker
	// do not have <name> listener". Default none: lookups name the
	// broker's own URLs.
	AdvertisedListeners []Listener
	// InternalListenerName is the listener of lookups that name none
	// (Pulsar's internalListenerName); it must be one of
	// AdvertisedListeners. Default: the first of them.
	InternalListenerName string
	// BindAddresses are binary-protocol ports beside Addr, each with the
	// listener name of its connections (Pulsar's bindAddresses; see
	// BindAddressURL). Restart listens on the same addresses again.
	// Default none.
	BindAddresses []BindAddress
	// ClusterName is the name of the broker's cluster (Pulsar's
	// clusterName), which exists at start with the tenants "public" and
	// "pulsar" and the namespaces "public/default" and "pulsar/system".
	// Default "standalone".
	ClusterName string
	// AutoCreateNamespaces makes the broker create a missing tenant and
	// namespace when a topic of theirs is first looked up, produced to or
	// subscribed to. Pulsar has no such setting: it refuses them (binary
	// LOOKUP: MetadataError; partitioned metadata: TopicNotFound
	// "Namespace not found"; PRODUCER and SUBSCRIBE: ServiceNotReady; HTTP
	// lookup: 404). Default false, as Pulsar: create namespaces with the
	// admin API (PUT /admin/v2/namespaces/{tenant}/{ns}) first.
	AutoCreateNamespaces bool
	// AutoTopicCreationPartitions, when > 0, makes topics created
	// automatically partitioned topics with this many partitions (Pulsar's
	// allowAutoTopicCreationType=partitioned and defaultNumPartitions).
	// Default 0: automatically created topics are non-partitioned.
	AutoTopicCreationPartitions int
	// BacklogQuota is the default backlog quota of every namespace
	// (Pulsar's backlogQuotaDefaultLimitBytes, backlogQuotaDefaultLimitSecond
	// and backlogQuotaDefaultRetentionPolicy), enforced like the quotas set
	// with the admin API. Default: no limit.
	BacklogQuota BacklogQuota
	// MaxMessageSize is the largest message (metadata + payload) the broker
	// accepts, announced to clients in CommandConnected. Default 5 MiB, as
	// Pulsar's maxMessageSize.
	MaxMessageSize int
	// LedgerRolloverEntries is the number of entries after which a topic
	// starts a new ledger, so that ledger boundaries are exercised.
	// Default 50,000.
	LedgerRolloverEntries int
	// DisableAutoTopicCreation makes lookups, producers and subscriptions on
	// unknown topics fail with TopicNotFound. Default false: topics are
	// created on first use, as with Pulsar's allowAutoTopicCreation.
	DisableAutoTopicCreation bool
	// DisableBatchIndexAck makes the broker ignore ack_set in acks and never
	// send one (Pulsar's acknowledgmentAtBatchIndexLevelEnabled=false).
	// Default false: batch-index acks are on.
	DisableBatchIndexAck bool
	// BrokerDeduplicationEnabled turns on broker deduplication for every
	// persistent topic (Pulsar's brokerDeduplicationEnabled): a SEND whose
	// sequence id is at or below the highest one stored for its producer
	// name is answered with a receipt and not stored again, and
	// PRODUCER_SUCCESS carries that highest id as last_sequence_id. A
	// namespace policy overrides it. Default false, as Pulsar's.
	BrokerDeduplicationEnabled bool
	// MessageTTL is the broker's default message TTL (Pulsar's
	// ttlDurationDefaultInSeconds, whole seconds): backlog published longer
	// ago is expired at the next check. Namespace and topic messageTTL
	// policies override it. Default 0: no TTL.
	MessageTTL time.Duration
	// MessageExpiryCheckInterval is how often topics expire backlog older
	// than their TTL (Pulsar's messageExpiryCheckIntervalInMinutes).
	// Default 5 min.
	MessageExpiryCheckInterval time.Duration
	// Retention is the default retention of consumed data (Pulsar's
	// defaultRetentionTimeInMinutes and defaultRetentionSizeInMB); namespace
	// and topic retention policies override it. Default: the zero value,
	// which keeps nothing that every durable subscription has consumed, as
	// Pulsar's default (see Retention).
	Retention Retention
	// RetentionCheckInterval is how often topics delete the ledgers their
	// retention no longer keeps (Pulsar's retentionCheckIntervalInSeconds);
	// they also do when a subscription moves on and when a ledger fills.
	// Default 120 s.
	RetentionCheckInterval time.Duration
	// KeyShared configures Key_Shared dispatch: selector and look-ahead
	// limits. Default: Pulsar 4.x's (see KeySharedOptions).
	KeyShared KeySharedOptions
	// KeepAliveInterval is how often the broker pings an idle client; a
	// client silent for twice as long is disconnected, as Pulsar's
	// keepAliveIntervalSeconds. Default 30 s.
	KeepAliveInterval time.Duration
	// MaxFrameSizeBeforeConnect is the largest frame a client may send
	// before its CONNECT has succeeded; a larger one closes the connection
	// (Pulsar has no such key: its CONNECT takes a few KiB). Default 74 KiB:
	// 64 KiB of credentials, the most the broker reads, and 10 KiB of room.
	MaxFrameSizeBeforeConnect int
	// WriteBufferHighWaterMark is how many bytes of frames may wait to be
	// written to one client (Pulsar's pulsarChannelWriteBufferHighWaterMark)
	// before, with PauseReceivingIfUnwritable, the broker reads nothing more
	// from that connection until the client has taken its frames down to
	// WriteBufferLowWaterMark; a connection that stays paused is closed by
	// the keep-alive check (nothing read for twice KeepAliveInterval).
	// Frames of messages to consumers do not count (flow permits bound
	// them), so deliveries never pause a client's reads; what a client's
	// own requests add does. Default 64 KiB, as Pulsar's.
	WriteBufferHighWaterMark int
	// PauseReceivingIfUnwritable makes the broker stop reading a client
	// past WriteBufferHighWaterMark (Pulsar's
	// pulsarChannelPauseReceivingRequestsIfUnwritable). Default false, as
	// Pulsar's: the broker reads on until MaxQueuedAnswers bytes wait for
	// the client. A client that reads its answers only once its own writes
	// go through (the official Go client) can deadlock with a broker that
	// stops reading it at 64 KiB.
	PauseReceivingIfUnwritable bool
	// MaxQueuedAnswers is, without PauseReceivingIfUnwritable, how many
	// bytes of frames other than deliveries (receipts, answers, PONGs) may
	// wait for one client before the broker stops reading it, until they
	// are down to half. Pulsar has no such bound (its outbound buffer grows
	// without end); it keeps a client that sends and never reads within
	// bounded memory. Default 32 MiB: far more receipts than a client has
	// sends in flight.
	MaxQueuedAnswers int
	// WriteBufferLowWaterMark is where a connection paused by
	// WriteBufferHighWaterMark is read from again (Pulsar's
	// pulsarChannelWriteBufferLowWaterMark). Default 32 KiB, as Pulsar's
	// (at most WriteBufferHighWaterMark).
	WriteBufferLowWaterMark int
	// MaxConnections is how many binary-protocol connections the broker
	// serves at once (Pulsar's brokerMaxConnections); one more is refused
	// with NotAllowedError and closed. Default 0: no limit, as Pulsar's.
	MaxConnections int
	// MaxConnectionsPerIP is how many binary-protocol connections one
	// client address may have at once (Pulsar's brokerMaxConnectionsPerIp),
	// refused as MaxConnections. Default 0: no limit, as Pulsar's.
	MaxConnectionsPerIP int
	// HTTPReadHeaderTimeout is how long the admin web service waits for a
	// request's headers. Default 10 s.
	HTTPReadHeaderTimeout time.Duration
	// HTTPReadTimeout is how long the admin web service waits for a whole
	// request, body included. Default 60 s.
	HTTPReadTimeout time.Duration
	// HTTPIdleTimeout is how long the admin web service keeps an idle
	// keep-alive connection open. Default twice KeepAliveInterval (60 s),
	// the idle limit of the binary port.
	HTTPIdleTimeout time.Duration
	// HTTPMaxHeaderBytes is the most bytes of request headers the admin
	// web service reads (Pulsar's httpMaxRequestHeaderSize). Default 8 KiB,
	// as Pulsar's.
	HTTPMaxHeaderBytes int
	// HAProxyProtocol accepts an HAProxy PROXY protocol header (v1 or v2)
	// at the start of binary-protocol connections (Pulsar's
	// haProxyProtocolEnabled): the client address is then the one the
	// header names (admin stats, logs); a connection without one is served
	// as it is; a malformed one is closed. On the TLS port the header comes
	// inside TLS, as in Pulsar's pipeline. Connection limits per IP count
	// the proxy's address, as Pulsar's. Default false.
	HAProxyProtocol bool
	// WebServiceHAProxyProtocol is HAProxyProtocol for the plain HTTP port
	// (Pulsar's webServiceHaProxyProtocolEnabled). Default false.
	WebServiceHAProxyProtocol bool
	// MaxConcurrentLookups is how many LOOKUP and PARTITIONED_METADATA
	// requests the broker answers at once (Pulsar's
	// maxConcurrentLookupRequest); one more is refused with
	// TooManyRequests "Failed due to too many pending lookup requests",
	// which clients retry. Default 50,000, as Pulsar's; negative: no limit.
	MaxConcurrentLookups int
	// HTTPLimits bound the admin web service: request size, rate,
	// concurrent requests and connections, debug methods (Pulsar's
	// httpMaxRequestSize, httpRequestsLimitEnabled, httpRequestsMaxPerSecond,
	// maxConcurrentHttpRequests, maxHttpServerConnections,
	// disableHttpDebugMethods). Default: Pulsar's (see HTTPLimits).
	HTTPLimits HTTPLimits
	// CursorFlushInterval is how often dirty subscription cursors are
	// persisted (Pulsar's managedLedgerCursorPositionFlushSeconds).
	// Default 60 s.
	CursorFlushInterval time.Duration
	// SchemaCompatibilityStrategy is the broker's schema compatibility
	// strategy (Pulsar's schemaCompatibilityStrategy): ALWAYS_INCOMPATIBLE,
	// ALWAYS_COMPATIBLE, BACKWARD, FORWARD, FULL, BACKWARD_TRANSITIVE,
	// FORWARD_TRANSITIVE or FULL_TRANSITIVE (any case); an unknown name
	// fails Start. Namespace and topic policies override it. Default
	// "FULL", as Pulsar's.
	SchemaCompatibilityStrategy string
	// DisableSchemaAutoUpdate refuses producers whose schema is not
	// registered yet (Pulsar's isAllowAutoUpdateSchemaEnabled=false).
	// Default false: a compatible new schema is registered.
	DisableSchemaAutoUpdate bool
	// SchemaValidationEnforced refuses producers without a schema on topics
	// that have one (Pulsar's isSchemaValidationEnforced). Default false.
	SchemaValidationEnforced bool
	// DataDir, when set, keeps topics and cursors in a crash-safe store in
	// that directory (bbolt), so that the broker's data survives the process.
	// Default "": in memory, surviving Restart and Crash but not the process.
	DataDir string
	// EntryCacheSize is how many bytes of entries the broker keeps in
	// memory when it has a DataDir (Pulsar's managedLedgerCacheSizeMB):
	// beyond it the oldest are dropped and read back from the data dir for
	// dispatch, and entries every durable subscription has acknowledged
	// are dropped at once. Negative: none kept once stored (Pulsar's 0).
	// Default 128 MiB (Pulsar's is a fifth of the JVM's direct memory, at
	// least 64 MiB; a fixed figure suits a stub on a laptop or in CI, and
	// Go's collector lets the heap reach about twice what is live, so the
	// cache costs up to twice its size in RSS).
	// Without a DataDir memory is the store: every retained entry stays.
	EntryCacheSize int64
	// TLS, when set, is the broker's TLS identity (see TLSFiles.Config for
	// one from Pulsar's tls*FilePath files). With TLSAddr or
	// WebServiceTLSAddr set, TLS is served on those ports beside the plain
	// ones, as Pulsar serves brokerServicePortTls and webServicePortTls;
	// with neither, the one binary listener speaks TLS (clients connect
	// with pulsar+ssl://; URL and lookups say so). Default: plain TCP only.
	// Dial's in-memory connections stay plain.
	TLS *tls.Config
	// TLSAddr is the TCP address of the TLS binary port (Pulsar's
	// brokerServicePortTls; see TLSURL), used when TLS is set. Restart
	// listens on the same address again. Default "": no separate TLS port.
	TLSAddr string
	// WebServiceTLSAddr is the TCP address of the admin REST API over TLS
	// (Pulsar's webServicePortTls; see WebServiceTLSURL), used when TLS is
	// set. Default "": no HTTPS listener.
	WebServiceTLSAddr string
	// WebServiceTLS, when set, is the TLS configuration of
	// WebServiceTLSAddr instead of TLS (the same identity with Pulsar's
	// webServiceTlsProtocols and webServiceTlsCiphers). Default: TLS.
	WebServiceTLS *tls.Config
	// Authenticate, when set, checks the credentials of every CONNECT (for
	// example method "token" and the token); an error refuses the
	// connection with AuthenticationError and closes it, as a broker with
	// authentication enabled does. Default: every client is accepted.
	Authenticate func(method string, data []byte) error
	// AuthenticationEnabled makes clients authenticate (Pulsar's
	// authenticationEnabled): CONNECT's auth_method_name picks a provider of
	// AuthenticationProviders, and credentials that do not check out are
	// refused with AuthenticationError "Failed to authenticate" and the
	// connection closed (HTTP 401 on the admin API).
	// Default false: every client is AnonymousUserRole.
	AuthenticationEnabled bool
	// AuthenticationProviders are the methods clients may use (Pulsar's
	// authenticationProviders): NewTokenProvider, NewTLSProvider,
	// NewBasicProvider. Default none.
	AuthenticationProviders []AuthenticationProvider
	// AuthenticationRefreshCheck is how often a connection whose
	// credentials expire checks them (Pulsar's
	// authenticationRefreshCheckSeconds): once expired, the broker sends
	// AUTH_CHALLENGE, and closes the connection when no valid AUTH_RESPONSE
	// has come by the next check. Default 60 s.
	AuthenticationRefreshCheck time.Duration
	// AnonymousUserRole is the role of clients that present no credentials
	// (Pulsar's anonymousUserRole). Default "": such clients are refused
	// when authentication is enabled.
	AnonymousUserRole string
	// AuthorizationEnabled checks every LOOKUP, PRODUCER, SUBSCRIBE and
	// admin request against the role's permissions (Pulsar's
	// authorizationEnabled): SuperUserRoles may do anything, a tenant's
	// adminRoles anything in the tenant, and other roles what the
	// namespace's permissions (produce, consume) grant them. Default false.
	AuthorizationEnabled bool
	// SuperUserRoles are the roles allowed everything (Pulsar's
	// superUserRoles). Default none.
	SuperUserRoles []string
	// ProxyRoles are the roles of Pulsar proxies (Pulsar's proxyRoles): with
	// authentication and authorization on, a connection of such a role must
	// name its client in CONNECT's original_principal (admin requests: the
	// X-Original-Principal header), which must not be a proxy role (else
	// AuthorizationError "Invalid roles.", HTTP 401), and both roles must be
	// allowed what is asked. Default none.
	ProxyRoles []string
	// AuthenticateOriginalAuthData authenticates a proxy's client from
	// CONNECT's original_auth_data and original_auth_method instead of
	// taking original_principal on trust (Pulsar's
	// authenticateOriginalAuthData). Default false.
	AuthenticateOriginalAuthData bool
	// AuthorizationAllowWildcardsMatching lets permissions granted to
	// "prefix*" or "*suffix" roles apply to the roles they match (Pulsar's
	// authorizationAllowWildcardsMatching). Default false.
	AuthorizationAllowWildcardsMatching bool
	// DisableDelayedDelivery makes the broker deliver messages that carry a
	// deliver_at_time at once (Pulsar's delayedDeliveryEnabled=false).
	// Default false: on Shared and Key_Shared subscriptions such a message
	// is held until its time; Exclusive and Failover deliver it at once.
	DisableDelayedDelivery bool
	// DelayedDeliveryTickTime is Pulsar's delayedDeliveryTickTimeMillis:
	// the least time between two wake-ups of a subscription's delayed
	// delivery timer and, unless DelayedDeliveryStrict, how much earlier
	// than its time a message may be delivered. Default 1 s.
	DelayedDeliveryTickTime time.Duration
	// DelayedDeliveryMaxDelay is Pulsar's delayedDeliveryMaxDelayInMillis:
	// a message whose deliver_at_time is more than this after its publish
	// time is refused with NotAllowedError. Namespace and topic
	// delayedDelivery policies override it. Default 0: no limit.
	DelayedDeliveryMaxDelay time.Duration
	// DelayedDeliveryStrict is Pulsar's isDelayedDeliveryDeliverAtTimeStrict:
	// a delayed message is never delivered before its time (it may be up to
	// a tick late). Default false, as Pulsar: up to a tick early.
	DelayedDeliveryStrict bool
	// ActiveConsumerFailoverDelay is how long a Failover subscription whose
	// active consumer changed waits before it redelivers what is
	// unacknowledged to the new one and tells the consumers who is active
	// (Pulsar's activeConsumerFailoverDelayTimeMillis); nothing is
	// dispatched meanwhile. Default 1 s, as Pulsar's; a negative value
	// switches the delay off.
	ActiveConsumerFailoverDelay time.Duration
	// ActiveConsumerFailoverConsistentHashing makes partitions of a
	// partitioned topic choose their active Failover consumer by the hash
	// ring that non-partitioned topics use, instead of the partition index
	// modulo the number of consumers (Pulsar's
	// activeConsumerFailoverConsistentHashing). Default false, as Pulsar's.
	ActiveConsumerFailoverConsistentHashing bool
	// TransactionCoordinatorEnabled turns on transactions (PIP-31; Pulsar's
	// transactionCoordinatorEnabled): one transaction coordinator, a
	// transaction buffer per persistent topic, pending transactional acks,
	// all kept in the store. Default false, as Pulsar's: the coordinator's
	// commands are refused with NotAllowedError "Transactions are not
	// enabled.".
	TransactionCoordinatorEnabled bool
	// Limits are the broker's limits on producers, consumers and
	// subscriptions per topic, topics per namespace, partitions and
	// unacknowledged messages (Pulsar's maxProducersPerTopic and the other
	// keys named in Limits), refused or enforced as Pulsar does. Default:
	// Pulsar's (no limits but 50,000 unacked messages per consumer and
	// 200,000 per subscription).
	Limits Limits
	// RateLimits are the broker's publish, dispatch and subscribe rate
	// limits (Pulsar's dispatchThrottlingRate…, publish and subscribe
	// throttling keys), which the rate policies override. Default: none,
	// and a subscribe rate period of 30 s, as Pulsar's.
	RateLimits RateLimits
	// DisableAutoSubscriptionCreation refuses a consumer of a durable
	// subscription that does not exist with SubscriptionNotFound (Pulsar's
	// allowAutoSubscriptionCreation=false); the namespace and topic
	// autoSubscriptionCreation policies override it. Default false.
	DisableAutoSubscriptionCreation bool
	// Lifecycle configures inactive topic deletion, subscription expiry,
	// deduplication's inactive producers and ledger rollover by time and
	// size (lifecycle.go). Default: Pulsar's, but for the rollover times and
	// size (see Lifecycle).
	Lifecycle Lifecycle
	// Tenancy configures forced deletion, the tenant and namespace limits,
	// namespace bundles and topic-level policies (tenant_limits.go).
	// Default: Pulsar's.
	Tenancy Tenancy
	// DisableNonPersistentTopics refuses producers and consumers of
	// non-persistent topics with NotAllowedError (Pulsar's
	// enableNonPersistentTopics=false). Default false.
	DisableNonPersistentTopics bool
	// Compaction configures topic compaction and its monitor
	// (compaction.go). Default: Pulsar's (no automatic compaction; the
	// monitor looks every 60 s).
	Compaction CompactionOptions
	// Gates are the broker's switches on subscription types, persistent
	// topics, encryption, clients per address, redelivery counts, Shared
	// dispatch batches, the broker-wide unacked limit and more (Pulsar's
	// keys named in Gates; gates.go). Default: Pulsar's.
	Gates Gates
	// Packages configures the packages admin API (admin_packages.go).
	// Default: off, as Pulsar's enablePackagesManagement.
	Packages PackagesOptions
	// BacklogScan bounds the analyze-backlog admin call (admin_analyze.go).
	// Default: Pulsar's (10000 entries, 2 minutes).
	BacklogScan BacklogScanOptions
	// WebSocket configures Pulsar's WebSocket API on the web service port
	// (websocket.go). Default: off, as Pulsar's webSocketServiceEnabled.
	WebSocket WebSocketOptions
	// Clock is the broker's time source. Default: the real clock.
	Clock Clock
	// Logger receives the broker's logs. Default: discarded.
	Logger *slog.Logger
}
