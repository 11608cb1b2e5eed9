// Package admin is brokerstub's HTTP side: Pulsar's admin REST API (one
// route table, each route declaring the operation authorization decides
// from), HTTP lookups, /metrics, the web console and the WebSocket API.
//
// A Web serves them over the engine (internal/engine), which it sees
// through the narrow interface Engine (engine.go): the engine methods it
// calls, and the topics' and subscriptions' methods, never their fields.
// It asks the rest of the broker (its URLs and listeners, authentication,
// a binary-protocol connection for a WebSocket session) through Hooks,
// which the root sets; it is configured by Config, which the root makes
// from its Options:
//
//	w := &admin.Web{Eng: eng, Cfg: cfg}
//	w.Hooks = admin.Hooks{WebServiceURL: ..., Authenticate: ..., ServeAs: ...}
//	if err := w.StartAdmin(); err != nil { ... }
//	...
//	w.StopAdmin()
//
// The package never imports brokerstub's root (rooms_test.go).
package admin

import (
	"crypto/tls"
	"net"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/clock"
)

// Web is the HTTP side of a broker: the admin REST API, HTTP lookups,
// /metrics, the console and the WebSocket API.
type Web struct {
	Eng Engine // the engine, through the narrow interface of engine.go
	Cfg Config

	Admin *Server // the admin server while the broker runs (admin_server.go)

	// console serves the web console's pages (console.go); nil without
	// Config.Console.
	console *console.Console

	// What the HTTP side asks of the rest of the broker, set by the root.
	Hooks Hooks
}

// Hooks are the broker's answers the HTTP side needs and does not own:
// its URLs and listeners (broker.go, tls.go, listeners.go, broker_web.go),
// whether it is closed, authentication (auth.go), and a binary-protocol
// connection for a WebSocket session.
type Hooks struct {
	WebServiceURL, WebServiceTLSURL, BrokerServiceURL, TLSURL, Addr func() string
	Advertise                                                       func(addr string) string
	// ListenerHTTP are the HTTP URLs of an advertised listener, ok false
	// when there is none of that name.
	ListenerHTTP func(name string) (httpURL, httpsURL string, ok bool)
	LookupURLs   func(listener string) (plain, secure string, err error)
	IsClosed     func() bool
	// Authenticate checks credentials with the configured providers.
	Authenticate func(method string, cr auth.Credentials, now time.Time) (auth.Identity, error)
	// ServeAs serves nc as a binary-protocol connection whose CONNECT
	// takes the role preset.
	ServeAs func(nc net.Conn, listener string, preset *auth.Identity)
	// ProxyListener wraps a listener's connections to read the PROXY
	// protocol header first (Options.WebServiceHAProxyProtocol).
	ProxyListener func(net.Listener) net.Listener
}

// Config is what the HTTP side is configured with: the parts of Options
// it reads, with defaults applied, made once by Options.webConfig
// (options_web.go). Each field is the Options field of the same name,
// documented there; the groups mirror Options' groups field for field, so
// that the root converts them and the compiler keeps the two in step.
type Config struct {
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
	HTTPLimits                HTTPLimitsConfig

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
	BacklogScan  BacklogScanConfig
	Packages     PackagesConfig
	WebSocket    WebSocketConfig
}

// HTTPLimitsConfig is HTTPLimits (options_http.go).
type HTTPLimitsConfig struct {
	MaxRequestSize        int64
	RequestsPerSecond     float64
	MaxConcurrentRequests int
	ConcurrencyWait       time.Duration
	MaxConnections        int
	DisableDebugMethods   bool
}

// BacklogScanConfig is BacklogScanOptions (options_admin.go).
type BacklogScanConfig struct {
	MaxEntries int
	MaxTime    time.Duration
}

// PackagesConfig is PackagesOptions (options_admin.go).
type PackagesConfig struct {
	Enabled      bool
	MaxSize      int64
	MaxTotalSize int64
}

// WebSocketConfig is WebSocketOptions (options_admin.go).
type WebSocketConfig struct {
	Enabled            bool
	MaxTextFrameSize   int
	SessionIdleTimeout time.Duration
}
