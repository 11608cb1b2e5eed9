package brokerstub

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// HTTPLimits bound the admin web service (its plain and TLS ports alike)
// as Pulsar's WebService does with Jetty's filters and connection limit.
// The zero value has Pulsar's defaults.
type HTTPLimits struct {
	// MaxRequestSize refuses, with 400 Bad Request, a request whose
	// Content-Length is larger or whose body is chunked (its size unknown),
	// as Pulsar's MaxRequestSizeFilter (httpMaxRequestSize). Default 0: no
	// limit, as Pulsar's -1 (bodies stay bounded at 1 MiB, answered 413).
	MaxRequestSize int64
	// RequestsPerSecond refuses requests beyond this rate with 429 Too
	// Many Requests, as Pulsar's RateLimitingFilter (httpRequestsLimitEnabled
	// with httpRequestsMaxPerSecond): a token bucket that holds up to one
	// second of requests (at least one) and starts with one, as Guava's
	// RateLimiter. Default 0: no limit (Pulsar's httpRequestsLimitEnabled
	// is false).
	RequestsPerSecond float64
	// MaxConcurrentRequests is how many requests are served at once, as
	// Pulsar's QoSFilter (maxConcurrentHttpRequests); one more waits for a
	// slot up to ConcurrencyWait and is then answered 503 Service
	// Unavailable. Default 1024, as Pulsar's; negative: no limit.
	MaxConcurrentRequests int
	// ConcurrencyWait is how long a request over MaxConcurrentRequests
	// waits (Jetty's asynchronous timeout). Default 30 s.
	ConcurrencyWait time.Duration
	// MaxConnections is how many HTTP connections are open at once, as
	// Jetty's ConnectionLimit (maxHttpServerConnections): past it no
	// connection is accepted (they wait in the listen backlog) until one
	// closes. Default 2048, as Pulsar's; negative: no limit.
	MaxConnections int
	// DisableDebugMethods answers TRACE and TRACK with 405 Method Not
	// Allowed whatever the path, as Pulsar's DisableDebugHttpMethodFilter
	// (disableHttpDebugMethods). Default false.
	DisableDebugMethods bool
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.MaxConcurrentRequests == 0 {
		l.MaxConcurrentRequests = 1024
	}
	if l.ConcurrencyWait <= 0 {
		l.ConcurrencyWait = 30 * time.Second
	}
	if l.MaxConnections == 0 {
		l.MaxConnections = 2048
	}
	return l
}

// httpLimiter applies HTTPLimits to requests, in the order of Pulsar's
// filters: concurrency, rate, debug methods, request size.
type httpLimiter struct {
	l     HTTPLimits
	clock Clock
	slots chan struct{} // nil: no concurrency limit

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func newHTTPLimiter(l HTTPLimits, clock Clock) *httpLimiter {
	h := &httpLimiter{l: l, clock: clock, tokens: 1, last: clock.Now()}
	if l.MaxConcurrentRequests > 0 {
		h.slots = make(chan struct{}, l.MaxConcurrentRequests)
	}
	return h
}

// admit answers a request the limits refuse and reports false; otherwise
// it returns the function that frees the request's slot.
func (h *httpLimiter) admit(w http.ResponseWriter, r *http.Request) (func(), bool) {
	release := func() {}
	if h.slots != nil {
		select {
		case h.slots <- struct{}{}:
		default:
			if !h.wait(r.Context()) {
				writeError(w, engine.RestErr(http.StatusServiceUnavailable, "Service Unavailable: more than %d concurrent requests (maxConcurrentHttpRequests)", h.l.MaxConcurrentRequests))
				return nil, false
			}
		}
		release = func() { <-h.slots }
	}
	refuse := func(re *engine.RestError) (func(), bool) {
		release()
		writeError(w, re)
		return nil, false
	}
	if h.l.RequestsPerSecond > 0 && !h.take() {
		return refuse(engine.RestErr(http.StatusTooManyRequests, "Too Many Requests"))
	}
	if h.l.DisableDebugMethods && (strings.EqualFold(r.Method, "TRACE") || strings.EqualFold(r.Method, "TRACK")) {
		release()
		w.WriteHeader(http.StatusMethodNotAllowed)
		return nil, false
	}
	if m := h.l.MaxRequestSize; m > 0 && (r.ContentLength > m || chunked(r)) {
		return refuse(engine.RestErr(http.StatusBadRequest, "Bad Request"))
	}
	return release, true
}

// chunked reports whether the request's body has no declared length.
func chunked(r *http.Request) bool {
	for _, te := range r.TransferEncoding {
		if strings.Contains(te, "chunked") {
			return true
		}
	}
	return false
}

// wait waits for a concurrency slot up to ConcurrencyWait, or until the
// request is gone.
func (h *httpLimiter) wait(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, h.l.ConcurrencyWait)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// take takes a token of the rate limit, refilled at RequestsPerSecond on
// the broker's clock up to one second's worth.
func (h *httpLimiter) take() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.clock.Now()
	if el := now.Sub(h.last); el > 0 {
		h.tokens = math.Min(math.Max(1, h.l.RequestsPerSecond), h.tokens+el.Seconds()*h.l.RequestsPerSecond)
		h.last = now
	}
	if h.tokens < 1 {
		return false
	}
	h.tokens--
	return true
}

// connSlots bounds the connections of the web service's listeners
// together (HTTPLimits.MaxConnections, Jetty's server-wide
// ConnectionLimit); nil: no limit.
type connSlots chan struct{}

func newConnSlots(n int) connSlots {
	if n <= 0 {
		return nil
	}
	return make(connSlots, n)
}

// limit returns ln accepting a connection only while a slot is free:
// Accept waits for an open connection to close.
func (s connSlots) limit(ln net.Listener) net.Listener {
	if s == nil {
		return ln
	}
	return &limitListener{Listener: ln, slots: s, done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     connSlots
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// NetConn returns the connection under the limit (for TLS and PROXY
// protocol wrappers that look for it).
func (c *limitConn) NetConn() net.Conn { return c.Conn }

// httpLimits reads Pulsar's HTTP limit keys into Options.HTTPLimits.
func (p *configParser) httpLimits(o *Options) {
	l := &o.HTTPLimits
	if v, ok := p.take("httpMaxRequestSize"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < -1 {
			p.fail("httpMaxRequestSize", v, "want a number of bytes, or -1 for no limit")
		} else if n > 0 {
			l.MaxRequestSize = n
		}
	}
	rate := 100.0 // Pulsar's httpRequestsMaxPerSecond
	if v, ok := p.take("httpRequestsMaxPerSecond"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			p.fail("httpRequestsMaxPerSecond", v, "want a number of requests per second > 0")
		} else {
			rate = f
		}
	}
	if p.bool("httpRequestsLimitEnabled", false) {
		l.RequestsPerSecond = rate
	}
	if n := p.int("maxConcurrentHttpRequests", 1024, -1<<31); n <= 0 {
		l.MaxConcurrentRequests = -1
	} else {
		l.MaxConcurrentRequests = int(n)
	}
	if n := p.int("maxHttpServerConnections", 2048, -1<<31); n <= 0 {
		l.MaxConnections = -1
	} else {
		l.MaxConnections = int(n)
	}
	l.DisableDebugMethods = p.bool("disableHttpDebugMethods", false)
}
