package admin

import (
	"context"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/internal/clock"
)

// httpLimiter applies HTTPLimits to requests, in the order of Pulsar's
// filters: concurrency, rate, debug methods, request size.
type httpLimiter struct {
	l     HTTPLimitsConfig
	clock clock.Clock
	Slots chan struct{} // nil: no concurrency limit

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func newHTTPLimiter(l HTTPLimitsConfig, clock clock.Clock) *httpLimiter {
	h := &httpLimiter{l: l, clock: clock, tokens: 1, last: clock.Now()}
	if l.MaxConcurrentRequests > 0 {
		h.Slots = make(chan struct{}, l.MaxConcurrentRequests)
	}
	return h
}

// admit answers a request the limits refuse and reports false; otherwise
// it returns the function that frees the request's slot.
func (h *httpLimiter) admit(w http.ResponseWriter, r *http.Request) (func(), bool) {
	release := func() {}
	if h.Slots != nil {
		select {
		case h.Slots <- struct{}{}:
		default:
			if !h.wait(r.Context()) {
				writeError(w, engine.RestErr(http.StatusServiceUnavailable, "Service Unavailable: more than %d concurrent requests (maxConcurrentHttpRequests)", h.l.MaxConcurrentRequests))
				return nil, false
			}
		}
		release = func() { <-h.Slots }
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
	case h.Slots <- struct{}{}:
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
