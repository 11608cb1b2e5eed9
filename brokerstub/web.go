package brokerstub

import (
	"crypto/tls"
	"net"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/clock"
)

// web is the HTTP side of a broker: the admin REST API, HTTP lookups,
// /metrics, the console and the WebSocket API. It reaches the data path
// through the engine, and the rest of the broker only through the hooks
// below, which the Broker sets (issue #34: the admin API is to become a
// package of its own).
type web struct {
	eng *engine.Engine
	cfg webConfig

	admin *adminServer // the admin server while the broker runs (admin_server.go)

	// What the HTTP side asks of the rest of the broker, set by Start.
	hooks webHooks
}

// webHooks are the broker's answers the HTTP side needs and does not own:
// its URLs and listeners (broker.go, tls.go, listeners.go, broker_web.go),
// whether it is closed, authentication (auth.go), and a binary-protocol
// connection for a WebSocket session.
type webHooks struct {
	webServiceURL, webServiceTLSURL, brokerServiceURL, tlsURL, addr func() string
	advertise                                                       func(addr string) string
	// listenerHTTP are the HTTP URLs of an advertised listener, ok false
	// when there is none of that name.
	listenerHTTP func(name string) (httpURL, httpsURL string, ok bool)
	lookupURLs   func(listener string) (plain, secure string, err error)
	isClosed     func() bool
	// authenticate checks credentials with the configured providers.
	authenticate func(method string, cr auth.Credentials, now time.Time) (auth.Identity, error)
	// serveAs serves nc as a binary-protocol connection whose CONNECT
	// takes the role preset.
	serveAs func(nc net.Conn, listener string, preset *auth.Identity)
	// proxyListener wraps a listener's connections to read the PROXY
	// protocol header first (Options.WebServiceHAProxyProtocol).
	proxyListener func(net.Listener) net.Listener
}

// webConfig is what the HTTP side is configured with: the parts of Options
// it reads, with defaults applied, made once by Options.webConfig
// (options_web.go). Each field is the Options field of the same name,
// documented there; the groups mirror Options' groups field for field, so
// that the root converts them and the compiler keeps the two in step.
type webConfig struct {
	Clock             clock.Clock
	ClusterName       string
	AnonymousUserRole string
	Profiling         bool
	Console           bool

	HTTPAddr                  string
	DisableWebServicePort     bool
	NoListener                bool
	TLS                       *tls.Config
	WebServiceTLS             *tls.Config
	WebServiceTLSAddr         string
	WebServiceHAProxyProtocol bool
	HTTPReadTimeout           time.Duration
	HTTPReadHeaderTimeout     time.Duration
	HTTPIdleTimeout           time.Duration
	HTTPMaxHeaderBytes        int
	HTTPLimits                httpLimitsConfig

	// What the runtime configuration and the policies' defaults show.
	MaxMessageSize                   int
	AutoTopicCreationPartitions      int
	LedgerRolloverEntries            int
	KeepAliveInterval                time.Duration
	EntryCacheSize                   int64
	DisableBatchIndexAck             bool
	DisableAutoTopicCreation         bool
	DefaultNumberOfNamespaceBundles  int  // Tenancy's
	ClientLibraryVersionCheckEnabled bool // Gates'

	BacklogQuota engine.BacklogQuotaConfig
	BacklogScan  backlogScanConfig
	Packages     packagesConfig
	WebSocket    webSocketConfig
}

// httpLimitsConfig is HTTPLimits (options_http.go).
type httpLimitsConfig struct {
	MaxRequestSize        int64
	RequestsPerSecond     float64
	MaxConcurrentRequests int
	ConcurrencyWait       time.Duration
	MaxConnections        int
	DisableDebugMethods   bool
}

// backlogScanConfig is BacklogScanOptions (options_admin.go).
type backlogScanConfig struct {
	MaxEntries int
	MaxTime    time.Duration
}

// packagesConfig is PackagesOptions (options_admin.go).
type packagesConfig struct {
	Enabled      bool
	MaxSize      int64
	MaxTotalSize int64
}

// webSocketConfig is WebSocketOptions (options_admin.go).
type webSocketConfig struct {
	Enabled            bool
	MaxTextFrameSize   int
	SessionIdleTimeout time.Duration
}
