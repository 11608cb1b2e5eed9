package brokerstub

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/admin"
	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/brokerstub/internal/protocol"
	"github.com/pulsargo/sdk/brokerstub/internal/store"
)

// The engine offers the binary protocol and the HTTP side what they ask of
// it through their narrow interfaces (internal/protocol/engine.go,
// internal/admin/engine.go).
var (
	_ protocol.Engine = (*engine.Engine)(nil)
	_ admin.Engine    = (*engine.Engine)(nil)
)

// Broker is an in-process Apache Pulsar broker speaking the binary protocol.
// Start one with Start or RunT; point any Pulsar client at URL(). All methods
// are safe for concurrent use.
type Broker struct {
	eng *engine.Engine   // the topics and what they share (internal/engine)
	srv *protocol.Server // the binary protocol's connections (server.go)

	opts Options

	interceptor atomic.Pointer[Interceptor]

	// mu guards the listeners and closed; the connections are the
	// server's, the topics the engine's, each under its own lock.
	mu      sync.Mutex
	ln      net.Listener
	addr    string       // the bound address, kept across restarts
	tlsLn   net.Listener // the TLS binary port beside ln (Options.TLSAddr)
	tlsAddr string       // its bound address, kept across restarts
	// bindLns are the Options.BindAddresses ports, bindAddrs their bound
	// addresses, kept across restarts (listeners.go).
	bindLns   []net.Listener
	bindAddrs []string
	closed    bool
	serveWG   sync.WaitGroup // accept loops

	api *admin.Web // the admin, console and WebSocket APIs (web.go)
}

// Start starts a broker with the given options.
func Start(opts Options) (*Broker, error) {
	opts = opts.withDefaults()
	if err := opts.Gates.check(); err != nil {
		return nil, err
	}
	if err := opts.Lifecycle.check(); err != nil {
		return nil, err
	}
	if err := opts.validateListeners(); err != nil { // listeners.go
		return nil, err
	}
	b := &Broker{opts: opts}
	st, err := b.openStore()
	if err != nil {
		return nil, err
	}
	var cache *ledger.Cache
	if opts.DataDir != "" {
		// Without a data dir memory is the store: there is nothing to
		// read dropped entries back from.
		cache = ledger.NewCache(opts.EntryCacheSize)
	}
	// Topics are created only once the listeners run, when b.srv is set.
	b.eng, err = engine.New(opts.engineConfig(), opts.Logger, st, cache, func() { b.srv.TopicListChanged() })
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	b.srv = &protocol.Server{Eng: b.eng, Log: opts.Logger, Cfg: opts.serverConfig(), Frames: sync.OnceValue(protocol.NewFramePool)}
	b.api = &admin.Web{Eng: b.eng, Cfg: opts.webConfig()}
	b.api.Hooks = admin.Hooks{WebServiceURL: b.WebServiceURL, WebServiceTLSURL: b.WebServiceTLSURL,
		BrokerServiceURL: b.brokerServiceURL, TLSURL: b.TLSURL, Addr: b.Addr, Advertise: b.advertise,
		ListenerHTTP: func(name string) (string, string, bool) {
			l, ok := b.listener(name)
			return l.HTTPURL, l.HTTPSURL, ok
		},
		LookupURLs: b.lookupURLs, IsClosed: b.isClosed, Authenticate: b.authenticateCredentials,
		ServeAs: func(nc net.Conn, listener string, preset *auth.Identity) { b.srv.Serve(nc, listener, preset) }, ProxyListener: func(l net.Listener) net.Listener { return proxyListener{l} }}
	b.srv.Hooks = protocol.Hooks{Intercept: b.interceptVerdict, Intercepting: func() bool { return b.interceptor.Load() != nil },
		Authenticate: b.authenticateCredentials, LookupURLs: b.lookupURLs,
		AdvertisedAddr: func() string { return b.advertise(b.Addr()) }}
	if opts.HAProxyProtocol {
		b.srv.Hooks.Proxied = func(nc net.Conn) net.Conn { return newProxyConn(nc, false) }
	}
	if err := b.listen(opts.Addr); err != nil {
		_ = st.Close()
		return nil, err
	}
	if err := b.api.StartAdmin(); err != nil {
		b.shutdown(true)
		_ = st.Close()
		return nil, err
	}
	b.eng.StartUnackedCheck() // unacked_broker.go
	return b, nil
}

// RunT starts a broker for the test t and closes it when the test ends. It
// fails the test if the broker cannot start.
func RunT(t testing.TB, opts ...Options) *Broker {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	b, err := Start(o)
	if err != nil {
		t.Fatalf("brokerstub: start: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func (b *Broker) openStore() (store.Store, error) {
	if b.opts.DataDir == "" {
		return store.NewMemory(), nil
	}
	st, err := store.OpenBolt(filepath.Join(b.opts.DataDir, "brokerstub.db"))
	if err != nil {
		return nil, fmt.Errorf("brokerstub: open data dir: %w", err)
	}
	return st, nil
}

// noListenerAddr is the address a broker with Options.NoListener names in
// its URL and lookups; ".invalid" never resolves, so only a Dialer reaches it.
const noListenerAddr = "brokerstub.invalid:6650"

func (b *Broker) listen(addr string) error {
	var ln net.Listener
	switch {
	case b.opts.NoListener:
		addr = noListenerAddr
	case b.opts.DisableBrokerServicePort:
		addr = ""
	default:
		var err error
		if ln, err = net.Listen("tcp", addr); err != nil {
			return fmt.Errorf("brokerstub: listen: %w", err)
		}
		if b.opts.TLS != nil && !b.opts.tlsSplit() {
			ln = tls.NewListener(ln, b.opts.TLS)
		}
		addr = ln.Addr().String()
	}
	var tlsLn net.Listener
	tlsAddr := b.tlsAddr
	if tlsAddr == "" {
		tlsAddr = b.opts.TLSAddr
	}
	if !b.opts.NoListener && b.opts.TLS != nil && tlsAddr != "" {
		var err error
		if tlsLn, err = listenTLS(tlsAddr, b.opts.TLS); err != nil {
			if ln != nil {
				_ = ln.Close()
			}
			return err
		}
		tlsAddr = tlsLn.Addr().String()
	}
	var bindLns []net.Listener
	if !b.opts.NoListener {
		var err error
		if bindLns, err = b.listenBindAddresses(); err != nil { // listeners.go
			for _, l := range []net.Listener{ln, tlsLn} {
				if l != nil {
					_ = l.Close()
				}
			}
			return err
		}
	}
	b.mu.Lock()
	b.bindLns, b.bindAddrs = bindLns, nil
	for _, l := range bindLns {
		b.bindAddrs = append(b.bindAddrs, l.Addr().String())
	}
	b.ln = ln
	b.addr = addr
	b.tlsLn = tlsLn
	if tlsLn != nil {
		b.tlsAddr = tlsAddr
	}
	b.closed = false
	b.mu.Unlock()
	b.srv.Open()
	b.eng.StartTopics()
	if err := b.eng.StartCoordinator(); err != nil { // txn.go
		if ln != nil {
			_ = ln.Close()
		}
		if tlsLn != nil {
			_ = tlsLn.Close()
		}
		return err
	}
	b.eng.StartSweeps() // inactive.go
	if ln != nil {
		b.serveWG.Add(1)
		go b.acceptLoop(ln)
	}
	if tlsLn != nil {
		b.serveWG.Add(1)
		go b.acceptLoop(tlsLn)
	}
	for i, l := range bindLns {
		b.serveWG.Add(1)
		go b.acceptLoopFor(l, b.opts.BindAddresses[i].Listener)
	}
	b.eng.Logger().Info("brokerstub listening", "url", b.URL(), "tls_url", b.TLSURL())
	return nil
}

// Accept errors (a full fd table: EMFILE, a connection reset before it
// was accepted) are retried after a pause that doubles from
// acceptRetryMin to acceptRetryMax, as net/http.Server does.
const (
	acceptRetryMin = 5 * time.Millisecond
	acceptRetryMax = time.Second
)

// acceptLoop serves the connections of ln until it is closed. No other
// error stops it: each is logged and retried with backoff.
func (b *Broker) acceptLoop(ln net.Listener) { b.acceptLoopFor(ln, "") }

// acceptLoopFor is acceptLoop for a port whose connections' lookups are
// answered for listener (Options.BindAddresses; "" for the main ports).
func (b *Broker) acceptLoopFor(ln net.Listener, listener string) {
	defer b.serveWG.Done()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || b.isClosed() {
				return
			}
			delay = min(max(2*delay, acceptRetryMin), acceptRetryMax)
			b.eng.Logger().Warn("brokerstub: accept failed; retrying", "addr", ln.Addr().String(), "err", err, "retry_in", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		b.serve(nc, listener)
	}
}

// serve starts the goroutines of a new connection, unless the broker is
// shutting down or the connection is one more than Options.MaxConnections
// or MaxConnectionsPerIP allow (then it is refused as Pulsar does).
func (b *Broker) serve(nc net.Conn, listener string) { b.serveAs(nc, listener, nil) }

// serveAs is serve for a connection whose role is already known (a
// WebSocket session's, authenticated over HTTP): its CONNECT takes the
// role preset instead of credentials.
func (b *Broker) serveAs(nc net.Conn, listener string, preset *Identity) {
	var id *auth.Identity
	if preset != nil {
		id = (*auth.Identity)(preset)
	}
	b.srv.Serve(nc, listener, id)
}

// URL returns the broker's service URL: "pulsar://host:port", or
// "pulsar+ssl://host:port" when Options.TLS is set without Options.TLSAddr
// or Options.WebServiceTLSAddr (the one binary port speaks TLS); host is
// Options.AdvertisedAddress when set. See TLSURL for the TLS port.
//
// With Options.DisableBrokerServicePort, URL returns the TLS port's URL
// (TLSURL), or "" when there is none either.
func (b *Broker) URL() string {
	if b.opts.DisableBrokerServicePort && !b.opts.NoListener {
		return b.TLSURL()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opts.TLS != nil && !b.opts.tlsSplit() {
		return "pulsar+ssl://" + b.advertise(b.addr)
	}
	return "pulsar://" + b.advertise(b.addr)
}

// advertise replaces the host of a bound address by Options.AdvertisedAddress
// when one is set: the host of every address the broker gives out (its
// service and web service URLs, lookup answers, the refusals that name
// this broker).
func (b *Broker) advertise(addr string) string {
	if b.opts.AdvertisedAddress == "" {
		return addr
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return net.JoinHostPort(b.opts.AdvertisedAddress, port)
}

// Addr returns the address the broker listens on, "host:port" ("" with
// Options.DisableBrokerServicePort).
func (b *Broker) Addr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addr
}

// Dial returns an in-memory connection to the broker, for clients that accept
// a dial function; network and address are ignored. The connection behaves
// like one accepted on the listener.
func (b *Broker) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	client, server := net.Pipe()
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		_ = client.Close()
		_ = server.Close()
		return nil, ErrClosed
	}
	b.serve(server, "")
	return client, nil
}

// Intercept installs f as the broker's Interceptor, replacing any earlier
// one; nil removes it.
func (b *Broker) Intercept(f Interceptor) {
	if f == nil {
		b.interceptor.Store(nil)
		return
	}
	b.interceptor.Store(&f)
}

// Close stops the broker: connections are closed, dirty cursors flushed and
// the store closed. It is idempotent.
func (b *Broker) Close() error {
	if !b.shutdown(true) {
		return nil
	}
	b.eng.StopUnackedCheck() // unacked_broker.go
	b.api.StopAdmin()
	return b.eng.Store().Close()
}

// Restart stops the broker gracefully (cursors flushed, as on a clean
// shutdown) and starts it again on the same address with the same data.
// Clients see their connections drop and reconnect.
func (b *Broker) Restart() error { return b.restart(true) }

// Crash stops the broker abruptly — cursor state that was not flushed is
// lost, stored entries are kept — and starts it again on the same address,
// as a broker process that was killed and restarted.
func (b *Broker) Crash() error { return b.restart(false) }

func (b *Broker) restart(graceful bool) error {
	defer b.api.PauseAdmin()()
	if !b.shutdown(graceful) {
		return ErrClosed
	}
	if b.opts.DataDir != "" {
		if err := b.eng.Store().Close(); err != nil {
			return err
		}
		st, err := b.openStore()
		if err != nil {
			return err
		}
		if err := b.eng.ReplaceStore(st); err != nil {
			return err
		}
	}
	return b.listen(b.Addr())
}

// shutdown closes the listener, every connection and every topic. It
// reports false if the broker was already closed.
func (b *Broker) shutdown(graceful bool) bool {
	b.eng.StopSweeps() // inactive.go: waits for a running check, which may take b.mu
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.closed = true
	if b.ln != nil {
		_ = b.ln.Close()
	}
	if b.tlsLn != nil {
		_ = b.tlsLn.Close()
	}
	for _, l := range b.bindLns {
		_ = l.Close()
	}
	b.mu.Unlock()

	b.srv.CloseConns()
	b.serveWG.Wait()
	b.eng.StopTopics(graceful)
	return true
}

// brokerServiceURL is the plain binary port's URL that lookups and cluster
// data name (Pulsar's brokerServiceUrl): "" when that port is disabled.
func (b *Broker) brokerServiceURL() string {
	addr := b.Addr()
	if addr == "" {
		return ""
	}
	return "pulsar://" + b.advertise(addr)
}

func (b *Broker) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}
