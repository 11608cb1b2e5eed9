// Package protocol is brokerstub's binary protocol: the client
// connections (Conn), the handlers of their commands, the outbound queue
// and its bounds, authentication on CONNECT and AUTH_RESPONSE, lookups and
// topic-list watchers.
//
// A Server holds the connections. It reaches the data path through the
// engine (internal/engine) as an Engine, a narrow interface (engine.go),
// and asks the rest of the broker (the
// Interceptor, the authentication providers, the listeners' URLs) through
// Hooks, which the root sets; it is configured by Config, which the root
// makes from its Options:
//
//	s := &protocol.Server{Eng: eng, Log: logger, Cfg: cfg, Frames: sync.OnceValue(protocol.NewFramePool)}
//	s.Hooks = protocol.Hooks{Intercept: ..., Authenticate: ..., LookupURLs: ..., AdvertisedAddr: ...}
//	s.Open()
//	s.Serve(nc, "", nil) // for each accepted connection
//	...
//	s.CloseConns()
//
// The package never imports brokerstub's root (rooms_test.go).
package protocol

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// Server is the binary protocol side of a broker: its connections, the
// lookups they have in flight and their topic-list watchers.
type Server struct {
	Eng Engine       // the data path (engine.go)
	Log *slog.Logger // the broker's logger (Options.Logger)
	Cfg Config

	connSeq atomic.Uint64
	Lookups atomic.Int64            // lookups being answered (lookup_limits.go)
	Watch   topicWatchers           // topic-list watchers (handle_topiclist.go)
	Frames  func() *wire.BufferPool // the connections' frame buffers (conn.go), made on first use

	// Mu guards conns, connsPerHost and closed.
	Mu    sync.Mutex
	Conns map[*Conn]struct{}
	// connsPerHost counts conns by client host (Options.MaxConnectionsPerIP).
	connsPerHost map[string]int
	closed       bool
	wg           sync.WaitGroup // connections

	// What the protocol asks of the rest of the broker, set by the root.
	Hooks Hooks
}

// Config is what a Server is configured with: the parts of
// brokerstub.Options it reads, with defaults applied, made once by the
// root (options_server.go). Each field is the Options field of the same
// name, documented there.
type Config struct {
	Clock                      clock.Clock
	MaxMessageSize             int
	MaxFrameSizeBeforeConnect  int
	MaxConnections             int
	MaxConnectionsPerIP        int
	MaxConcurrentLookups       int
	KeepAliveInterval          time.Duration
	PauseReceivingIfUnwritable bool
	WriteBufferHighWaterMark   int
	WriteBufferLowWaterMark    int
	MaxQueuedAnswers           int

	MaxConcurrentNonPersistentMessagePerConnection int // Gates'

	Authenticate                 func(method string, data []byte) error
	AnonymousUserRole            string
	AuthenticationRefreshCheck   time.Duration
	AuthenticateOriginalAuthData bool
	ProxyRoles                   []string
	// AuthMethods are the methods of Options.AuthenticationProviders.
	AuthMethods []string
}

// Hooks are the broker's answers the protocol needs and does not own,
// set by the root (brokerstub's broker.go, control.go, auth.go,
// listeners.go, proxyproto.go).
type Hooks struct {
	// Intercept shows a command to the Interceptor (control.go) and
	// returns what to do with it.
	Intercept func(connID uint64, outbound bool, cmd *proto.BaseCommand) Verdict
	// Intercepting reports whether an Interceptor is installed, so that a
	// connection decodes the commands it sends only then.
	Intercepting func() bool
	// Authenticate checks credentials with the configured providers
	// (auth.go).
	Authenticate func(method string, cr auth.Credentials, now time.Time) (auth.Identity, error)
	// LookupURLs are the service URLs of a listener (listeners.go).
	LookupURLs func(listener string) (plain, secure string, err error)
	// AdvertisedAddr is the binary port's address as the broker
	// advertises it (broker.go).
	AdvertisedAddr func() string
	// Proxied, with Options.HAProxyProtocol, wraps a new connection to
	// read the PROXY protocol header first (proxyproto.go).
	Proxied func(net.Conn) net.Conn
}

// Open lets the server take connections, at start and after a restart.
func (s *Server) Open() {
	s.Mu.Lock()
	s.Conns = make(map[*Conn]struct{})
	s.connsPerHost = make(map[string]int)
	s.closed = false
	s.Mu.Unlock()
}

// CloseConns closes every connection and waits for their goroutines; the
// server takes none until open.
func (s *Server) CloseConns() {
	s.Mu.Lock()
	s.closed = true
	conns := make([]*Conn, 0, len(s.Conns))
	for c := range s.Conns {
		conns = append(conns, c)
	}
	s.Mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	s.wg.Wait()
}

// Serve starts the goroutines of a new connection, unless the server is
// closed or the connection is one more than Options.MaxConnections or
// MaxConnectionsPerIP allow (then it is refused as Pulsar does). listener
// names the port it came in on (Options.BindAddresses; "" for the main
// ports); preset is the role of a connection already authenticated (a
// WebSocket session's), which its CONNECT takes instead of credentials.
func (s *Server) Serve(nc net.Conn, listener string, preset *auth.Identity) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.closed {
		_ = nc.Close()
		return
	}
	host := remoteHost(nc)
	if msg := s.connLimitRefusal(nc, host); msg != "" {
		s.Log.Warn("brokerstub: connection refused", "remote", nc.RemoteAddr().String(), "reason", msg)
		go refuseConn(nc, msg)
		return
	}
	if s.Hooks.Proxied != nil {
		nc = s.Hooks.Proxied(nc) // the PROXY header is read by the connection's reader
	}
	c := NewConn(s, nc)
	c.listener = listener
	c.preset = preset
	s.Conns[c] = struct{}{}
	s.connsPerHost[host]++
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.run()
		s.Mu.Lock()
		delete(s.Conns, c)
		if s.connsPerHost[host]--; s.connsPerHost[host] <= 0 {
			delete(s.connsPerHost, host)
		}
		s.Mu.Unlock()
	}()
}

// Verdict is what the Interceptor decided for a command: close the
// connection, wait delay, then drop it, fail it with failCode (inbound
// only), or pass it on.
type Verdict struct {
	CloseConn bool
	Delay     time.Duration
	Drop      bool
	Fail      bool
	FailCode  proto.ServerError
}
