package brokerstub

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/internal/wire"
)

// server is the binary protocol side of a broker: its connections, the
// lookups they have in flight and their topic-list watchers. It reaches
// the data path through the engine, and the rest of the broker only
// through the hooks below, which the Broker sets (issue #34: the protocol
// is to become a package of its own).
type server struct {
	eng  *engine.Engine
	opts Options

	interceptor atomic.Pointer[Interceptor]
	connSeq     atomic.Uint64
	lookups     atomic.Int64            // lookups being answered (lookup_limits.go)
	watch       topicWatchers           // topic-list watchers (handle_topiclist.go)
	frames      func() *wire.BufferPool // the connections' frame buffers (conn.go), made on first use

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

// serverHooks are the broker's answers the protocol needs and does not
// own.
type serverHooks struct {
	// intercept shows a command to the Interceptor (control.go).
	intercept func(connID uint64, dir Direction, cmd *proto.BaseCommand) Action
	// authenticate checks credentials with the configured providers
	// (auth.go).
	authenticate func(method string, d AuthenticationData, now time.Time) (Identity, error)
	// lookupURLs are the service URLs of a listener (listeners.go).
	lookupURLs func(listener string) (plain, secure string, err error)
	// advertisedAddr is the binary port's address as the broker
	// advertises it (broker.go).
	advertisedAddr func() string
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
func (s *server) serve(nc net.Conn, listener string, preset *Identity) {
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
	if s.opts.HAProxyProtocol {
		nc = newProxyConn(nc, false) // proxyproto.go: the header is read by the connection's reader
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
