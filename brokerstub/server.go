package brokerstub

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// server is the binary protocol side of a broker: its connections, the
// lookups they have in flight and their topic-list watchers. It reaches
// the data path through the engine, and the rest of the broker only
// through the hooks below, which the Broker sets (issue #34: the protocol
// is to become a package of its own).
type server struct {
	eng *engine.Engine
	cfg serverConfig

	connSeq atomic.Uint64
	lookups atomic.Int64            // lookups being answered (lookup_limits.go)
	watch   topicWatchers           // topic-list watchers (handle_topiclist.go)
	frames  func() *wire.BufferPool // the connections' frame buffers (conn.go), made on first use

	// mu guards conns, connsPerHost and closed.
	mu    sync.Mutex
	conns map[*conn]struct{}
	// connsPerHost counts conns by client host (Options.MaxConnectionsPerIP).
	connsPerHost map[string]int
	closed       bool
	wg           sync.WaitGroup // connections

	// What the protocol asks of the rest of the broker, set by Start.
	hooks serverHooks
}

// serverConfig is what the protocol is configured with: the parts of
// Options it reads, with defaults applied, made once by
// Options.serverConfig (options_server.go). Each field is the Options
// field of the same name, documented there.
type serverConfig struct {
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

// serverHooks are the broker's answers the protocol needs and does not
// own.
type serverHooks struct {
	// intercept shows a command to the Interceptor (control.go) and
	// returns what to do with it.
	intercept func(connID uint64, outbound bool, cmd *proto.BaseCommand) verdict
	// intercepting reports whether an Interceptor is installed, so that a
	// connection decodes the commands it sends only then.
	intercepting func() bool
	// authenticate checks credentials with the configured providers
	// (auth.go).
	authenticate func(method string, cr auth.Credentials, now time.Time) (auth.Identity, error)
	// lookupURLs are the service URLs of a listener (listeners.go).
	lookupURLs func(listener string) (plain, secure string, err error)
	// advertisedAddr is the binary port's address as the broker
	// advertises it (broker.go).
	advertisedAddr func() string
	// proxied, with Options.HAProxyProtocol, wraps a new connection to
	// read the PROXY protocol header first (proxyproto.go).
	proxied func(net.Conn) net.Conn
}

// open lets the server take connections, at start and after a restart.
func (s *server) open() {
	s.mu.Lock()
	s.conns = make(map[*conn]struct{})
	s.connsPerHost = make(map[string]int)
	s.closed = false
	s.mu.Unlock()
}

// closeConns closes every connection and waits for their goroutines; the
// server takes none until open.
func (s *server) closeConns() {
	s.mu.Lock()
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	s.wg.Wait()
}

// serve starts the goroutines of a new connection, unless the server is
// closed or the connection is one more than Options.MaxConnections or
// MaxConnectionsPerIP allow (then it is refused as Pulsar does). listener
// names the port it came in on (Options.BindAddresses; "" for the main
// ports); preset is the role of a connection already authenticated (a
// WebSocket session's), which its CONNECT takes instead of credentials.
func (s *server) serve(nc net.Conn, listener string, preset *auth.Identity) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = nc.Close()
		return
	}
	host := remoteHost(nc)
	if msg := s.connLimitRefusal(nc, host); msg != "" {
		s.eng.Log.Warn("brokerstub: connection refused", "remote", nc.RemoteAddr().String(), "reason", msg)
		go refuseConn(nc, msg)
		return
	}
	if s.hooks.proxied != nil {
		nc = s.hooks.proxied(nc) // the PROXY header is read by the connection's reader
	}
	c := newConn(s, nc)
	c.listener = listener
	c.preset = preset
	s.conns[c] = struct{}{}
	s.connsPerHost[host]++
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.run()
		s.mu.Lock()
		delete(s.conns, c)
		if s.connsPerHost[host]--; s.connsPerHost[host] <= 0 {
			delete(s.connsPerHost, host)
		}
		s.mu.Unlock()
	}()
}

// verdict is what the Interceptor decided for a command: close the
// connection, wait delay, then drop it, fail it with failCode (inbound
// only), or pass it on.
type verdict struct {
	closeConn bool
	delay     time.Duration
	drop      bool
	fail      bool
	failCode  proto.ServerError
}
