package admin

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/pulsargo/sdk/brokerstub/internal/console"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// maxAdminBody bounds admin request bodies; a larger one is refused with
// 413 before it is read.
const maxAdminBody = 1 << 20

// Server serves the admin REST API, HTTP lookups and /metrics. Its
// listener lives from Start to Close: a Restart pauses requests (gate)
// instead of closing it, so the address stays the same.
type Server struct {
	b    *Web
	Srv  *http.Server
	ln   net.Listener
	Addr string
	// tlsSrv serves the same handler over TLS on tlsAddr
	// (Options.WebServiceTLSAddr, Pulsar's webServicePortTls).
	tlsSrv  *http.Server
	TlsAddr string
	tlsDone chan struct{}
	Routes  []Route // Routes(), shared by every broker
	// Limits and conns apply Options.HTTPLimits (http_limits.go).
	Limits *httpLimiter
	conns  connSlots
	// gate is held for reading by every request and for writing by Restart
	// while the broker's store and topics are replaced.
	gate sync.RWMutex
	done chan struct{}
	ws   wsSessions // the WebSocket API's sessions (websocket.go)
	pkgs packages   // the packages API's lock (admin_packages.go)
}

// rawReply is an answer written as it is (a message payload, text, or
// JSON with a status other than 200).
type rawReply struct {
	contentType string
	header      http.Header
	body        []byte
	status      int // 0: 200
}

// adminReq is one admin request with its path parameters and body.
type adminReq struct {
	b    *Web
	role string // the authenticated role (AnonymousUserRole, or "")
	r    *http.Request
	p    map[string]string
	q    url.Values
	body []byte
}

type adminHandler func(*adminReq) (any, error)

// Route is one line of the route table: a method and pattern, the Pulsar
// operation it is (authz_ops.go), and its handler.
type Route struct {
	Method  string
	Pattern string
	Segs    []string
	Op      adminOp
	domain  string // of its topics when the pattern has no {domain}
	h       adminHandler
	// packageBody: the body may be a package upload, up to
	// Options.Packages.MaxSize plus maxAdminBody, not maxAdminBody.
	packageBody bool
}

// StartAdmin opens the HTTP listeners (unless NoListener; the plain one
// unless DisableWebServicePort) and loads the admin state from the store.
func (b *Web) StartAdmin() error {
	a := &Server{b: b, done: make(chan struct{}),
		Limits: newHTTPLimiter(b.Cfg.HTTPLimits, b.Cfg.Clock), conns: newConnSlots(b.Cfg.HTTPLimits.MaxConnections)}
	a.Routes = Routes()
	if b.Cfg.Console {
		b.console = console.New(consoleSource{b}, console.Options{})
	}
	b.Admin = a
	if b.Cfg.NoListener {
		return nil
	}
	if !b.Cfg.DisableWebServicePort {
		ln, err := net.Listen("tcp", b.Cfg.HTTPAddr)
		if err != nil {
			return fmt.Errorf("brokerstub: listen http: %w", err)
		}
		a.ln, a.Addr = a.conns.limit(ln), ln.Addr().String()
		if b.Cfg.WebServiceHAProxyProtocol {
			a.ln = a.b.Hooks.ProxyListener(a.ln) // proxyproto.go
		}
		a.Srv = b.newHTTPServer(a, slog.LevelWarn)
		go func() {
			defer close(a.done)
			_ = a.Srv.Serve(a.ln)
		}()
	}
	if b.Cfg.TLS != nil && b.Cfg.WebServiceTLSAddr != "" {
		cfg := b.Cfg.TLS
		if b.Cfg.WebServiceTLS != nil {
			cfg = b.Cfg.WebServiceTLS
		}
		raw, err := net.Listen("tcp", b.Cfg.WebServiceTLSAddr)
		if err != nil {
			b.StopAdmin()
			a.Srv = nil
			return fmt.Errorf("brokerstub: listen https: %w", err)
		}
		tln := tls.NewListener(a.conns.limit(raw), cfg)
		a.TlsAddr = tln.Addr().String()
		// TLS handshake failures are logged too: at debug level.
		a.tlsSrv = b.newHTTPServer(a, slog.LevelDebug)
		a.tlsDone = make(chan struct{})
		go func() {
			defer close(a.tlsDone)
			_ = a.tlsSrv.Serve(tln)
		}()
	}
	b.Eng.Logger().Info("brokerstub web service", "url", b.Hooks.WebServiceURL(), "tls_url", b.Hooks.WebServiceTLSURL())
	return nil
}

// newHTTPServer returns the admin web service's http.Server, with the
// limits of Options (HTTPReadHeaderTimeout, HTTPReadTimeout,
// HTTPIdleTimeout, HTTPMaxHeaderBytes), so that slow or idle clients
// cannot hold its file descriptors; its errors (accept errors included,
// which net/http retries) go to the broker's Logger at level.
func (b *Web) newHTTPServer(h http.Handler, level slog.Level) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: b.Cfg.HTTPReadHeaderTimeout,
		ReadTimeout:       b.Cfg.HTTPReadTimeout,
		IdleTimeout:       b.Cfg.HTTPIdleTimeout,
		MaxHeaderBytes:    b.Cfg.HTTPMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(b.Eng.Logger().Handler(), level),
	}
}

// StopAdmin closes the HTTP listeners and waits for requests in flight.
func (b *Web) StopAdmin() {
	a := b.Admin
	if a == nil {
		return
	}
	b.closeWebSockets()
	if a.Srv != nil {
		_ = a.Srv.Close()
		<-a.done
	}
	if a.tlsSrv != nil {
		_ = a.tlsSrv.Close()
		<-a.tlsDone
	}
}

// PauseAdmin holds admin requests while Restart swaps the store; the
// returned function lets them go again.
func (b *Web) PauseAdmin() func() {
	if b.Admin == nil {
		return func() {}
	}
	b.Admin.gate.Lock()
	return b.Admin.gate.Unlock
}

// routeTable collects the routes while Register lists them.
type routeTable struct{ routes []Route }

// Add registers a route and the operation it is, which alone decides who
// may use it (authorizeAdmin); patterns are slash-separated segments where
// "{name}" captures one segment and "{domain}" captures only "persistent"
// or "non-persistent". Earlier routes win.
func (a *routeTable) Add(method, pattern string, op adminOp, h adminHandler) {
	a.routes = append(a.routes, NewRoute(method, pattern, op, h))
}

// NewRoute returns the route table's line for method, pattern, op and h.
func NewRoute(method, pattern string, op adminOp, h adminHandler) Route {
	segs := strings.Split(strings.Trim(pattern, "/"), "/")
	return Route{Method: method, Pattern: pattern, Segs: segs, Op: op, domain: routeDomain(segs), h: h}
}

// Routes returns the route table, built once per process: it holds no
// broker's state (a handler finds its broker in its request), and no one
// changes it after it is built, so every broker of a test binary shares
// it instead of splitting some 300 patterns at each Start.
var Routes = sync.OnceValue(func() []Route {
	var t routeTable
	t.Register()
	return slices.Clip(t.routes)
})

func (rt Route) Match(segs []string) (map[string]string, bool) {
	if len(segs) != len(rt.Segs) {
		return nil, false
	}
	var p map[string]string
	for i, s := range rt.Segs {
		if strings.HasPrefix(s, "{") {
			if s == "{domain}" && segs[i] != "persistent" && segs[i] != "non-persistent" {
				return nil, false
			}
			if segs[i] == "" {
				return nil, false
			}
			if p == nil {
				p = map[string]string{}
			}
			p[s[1:len(s)-1]] = segs[i]
			continue
		}
		if s != segs[i] {
			return nil, false
		}
	}
	return p, true
}

// ServeHTTP routes a request, bounds its body, and writes the handler's
// answer: JSON (200), nothing (204), a rawReply, or a restError as
// {"reason": ...}. A panic in a handler is answered 503, never 500.
func (a *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			a.b.Eng.Logger().Error("admin handler panic", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			writeError(w, engine.RestErr(http.StatusServiceUnavailable, "internal error: %v", v))
		}
	}()
	// A WebSocket session outlives its request: it holds no gate, and no
	// permit of the HTTP limits (only its upgrade request would count).
	if a.serveWebSocket(w, r) {
		return
	}
	release, ok := a.Limits.admit(w, r)
	if !ok {
		return
	}
	defer release()
	a.gate.RLock()
	defer a.gate.RUnlock()
	segs, ok := engine.SplitPath(r.URL.EscapedPath())
	if !ok {
		writeError(w, engine.RestErr(http.StatusBadRequest, "bad path encoding"))
		return
	}
	var h adminHandler
	var params map[string]string
	var matched *Route
	pathMatched := false
	for i, rt := range a.Routes {
		p, ok := rt.Match(segs)
		if !ok {
			continue
		}
		pathMatched = true
		if rt.Method == r.Method || (r.Method == http.MethodHead && rt.Method == http.MethodGet) {
			h, params, matched = rt.h, p, &a.Routes[i]
			break
		}
	}
	if h == nil {
		if pathMatched {
			writeError(w, engine.RestErr(http.StatusMethodNotAllowed, "HTTP %s not allowed on %s", r.Method, r.URL.Path))
			return
		}
		writeError(w, engine.RestErr(http.StatusNotFound, "Not Found: %s", r.URL.Path))
		return
	}
	role, re := a.authorizeHTTP(r, matched, params)
	if re != nil {
		writeError(w, re)
		return
	}
	rq := &adminReq{b: a.b, role: role, r: r, p: params, q: r.URL.Query()}
	if r.Body != nil {
		limit := int64(maxAdminBody)
		if matched.packageBody {
			limit += a.b.Cfg.Packages.MaxSize
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, engine.RestErr(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", limit))
			return
		}
		rq.body = body
	}
	if a.b.Hooks.IsClosed() {
		writeError(w, engine.RestErr(http.StatusServiceUnavailable, "broker is closed"))
		return
	}
	v, err := h(rq)
	if err != nil {
		var re *engine.RestError
		if !errors.As(err, &re) {
			re = mapError(err)
		}
		writeError(w, re)
		return
	}
	switch v := v.(type) {
	case nil:
		w.WriteHeader(http.StatusNoContent)
	case handlerReply:
		r.Body = io.NopCloser(bytes.NewReader(rq.body)) // read above, within maxAdminBody
		v.h.ServeHTTP(w, r)
	case unlockedReply:
		// A long answer (a console stream) must not hold Restart back: it
		// takes the gate itself for each snapshot.
		a.gate.RUnlock()
		defer a.gate.RLock() // for the deferred RUnlock
		v.h.ServeHTTP(w, r)
	case rawReply:
		for k, vs := range v.header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", v.contentType)
		if v.status != 0 {
			w.WriteHeader(v.status)
		}
		_, _ = w.Write(v.body)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			writeError(w, engine.RestErr(http.StatusServiceUnavailable, "encode: %v", err))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}
}

// decode reads the JSON body into v; an empty body or "null" leaves v as
// it is. Bad JSON is a 400.
func (rq *adminReq) decode(v any) error {
	s := strings.TrimSpace(string(rq.body))
	if s == "" || s == "null" {
		return nil
	}
	if err := json.Unmarshal(rq.body, v); err != nil {
		return engine.RestErr(http.StatusBadRequest, "Cannot parse request body: %v", err)
	}
	return nil
}

// hasBody reports whether the request carries a JSON value.
func (rq *adminReq) hasBody() bool {
	s := strings.TrimSpace(string(rq.body))
	return s != "" && s != "null"
}

// flag reads a boolean query parameter (absent: false).
func (rq *adminReq) flag(name string) bool {
	v := rq.q.Get(name)
	return v == "true" || v == "1"
}
