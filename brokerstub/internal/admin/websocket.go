package admin

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/websocket"
	"github.com/pulsargo/sdk/internal/proto"
)

// wsSessions tracks the open sessions, so that Close can wait for them.
type wsSessions struct {
	mu   sync.Mutex
	wg   sync.WaitGroup
	open map[*wsSession]struct{}
}

// serveWebSocket serves a request under /ws/. It reports false when the
// WebSocket API is off, for the admin routes to answer (404).
func (a *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) bool {
	b := a.b
	if !b.Cfg.WebSocket.Enabled || !strings.HasPrefix(r.URL.Path, "/ws/") {
		return false
	}
	segs, ok := engine.SplitPath(r.URL.EscapedPath())
	if !ok {
		http.Error(w, "bad path encoding", http.StatusBadRequest)
		return true
	}
	// ws v2 kind domain tenant ns topic [subscription]
	if len(segs) < 7 || segs[1] != "v2" || (segs[3] != "persistent" && segs[3] != "non-persistent") {
		http.Error(w, "Not Found: "+r.URL.Path+" (brokerstub serves /ws/v2/{producer|consumer|reader}/{domain}/{tenant}/{namespace}/{topic})", http.StatusNotFound)
		return true
	}
	kind := segs[2]
	want := 7
	if kind == "consumer" {
		want = 8
	}
	if (kind != "producer" && kind != "consumer" && kind != "reader") || len(segs) != want {
		http.Error(w, "Not Found: "+r.URL.Path, http.StatusNotFound)
		return true
	}
	if _, err := websocket.CheckHandshake(r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return true
	}
	name, err := engine.ParseTopic(segs[3] + "://" + segs[4] + "/" + segs[5] + "/" + segs[6])
	if err != nil {
		http.Error(w, "Invalid query params: "+err.Error(), http.StatusBadRequest)
		return true
	}
	role, ok := b.authenticateWS(w, r)
	if !ok {
		return true
	}
	s := &wsSession{b: b, r: r, q: r.URL.Query(), name: name, role: role}
	switch kind {
	case "producer":
		s.serveProducer(w)
	case "consumer":
		s.sub = segs[7]
		s.serveConsumer(w, false)
	case "reader":
		s.serveConsumer(w, true)
	}
	return true
}

// authenticateWS authenticates the upgrade request as Pulsar's WebSocket
// service: the admin API's credentials, and a token may come as the query
// parameter "token" instead of the Authorization header (browsers cannot
// set headers on a WebSocket). It answers 401 "Failed to authenticate".
func (b *Web) authenticateWS(w http.ResponseWriter, r *http.Request) (string, bool) {
	if !b.Eng.AuthEnabled() {
		return b.Cfg.AnonymousUserRole, true
	}
	if tok := r.URL.Query().Get("token"); tok != "" && r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context())
		if !strings.HasPrefix(tok, "Bearer ") {
			tok = "Bearer " + tok
		}
		r.Header.Set("Authorization", tok)
	}
	method, d, ok := HttpCredentials(r)
	if ok {
		id, err := b.Hooks.Authenticate(method, d, b.Cfg.Clock.Now())
		if err == nil {
			return id.Role, true
		}
		b.Eng.Logger().Info("websocket authentication refused", "method", method, "path", r.URL.Path, "err", err)
	}
	http.Error(w, "Failed to authenticate", http.StatusUnauthorized)
	return "", false
}

// authorizeWS checks that the session's role may act on its topic, as
// Pulsar's WebSocket handlers do before they create their producer or
// consumer; it answers 403 "Not authorized".
func (s *wsSession) authorizeWS(w http.ResponseWriter, act engine.AuthzAction) bool {
	if !s.b.Eng.AuthzOn() || s.b.Eng.AllowTopic(s.role, s.name, act, s.sub) {
		return true
	}
	s.b.Eng.Logger().Info("websocket authorization refused", "role", s.role, "topic", s.name.Full)
	http.Error(w, "Not authorized", http.StatusForbidden)
	return false
}

// wsSession is one WebSocket producer, consumer or reader.
type wsSession struct {
	b    *Web
	r    *http.Request
	q    map[string][]string
	name engine.TopicName
	sub  string
	role string
	ws   *websocket.Conn
	bin  *wsBinary

	// idleMu guards ws and bin as they are set, and the fields below.
	idleMu   sync.Mutex
	lastUsed time.Time
	stopIdle func() bool
	closed   bool
}

func (s *wsSession) param(k string) string {
	if v := s.q[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// createError answers a failed create of the session's producer or
// consumer as Pulsar's handlers: 409 for ProducerBusy/ConsumerBusy, 503
// for a producer blocked by a backlog quota, 500 otherwise, with what the
// broker said.
func createError(w http.ResponseWriter, what string, err error) {
	code := http.StatusInternalServerError
	if be, ok := err.(*wsBrokerError); ok {
		switch be.code {
		case proto.ServerError_ProducerBusy, proto.ServerError_ConsumerBusy:
			code = http.StatusConflict
		case proto.ServerError_ProducerBlockedQuotaExceededError, proto.ServerError_ProducerBlockedQuotaExceededException:
			code = http.StatusServiceUnavailable
		case proto.ServerError_AuthorizationError:
			code = http.StatusForbidden
		}
		err = errorText(be.msg)
	}
	http.Error(w, what+": "+err.Error(), code)
}

type errorText string

func (e errorText) Error() string { return string(e) }

// upgrade completes the handshake and registers the session; it reports
// false when the broker is closing.
func (s *wsSession) upgrade(w http.ResponseWriter) bool {
	b := s.b
	ws, err := websocket.Upgrade(w, s.r, b.Cfg.WebSocket.MaxTextFrameSize)
	if err != nil {
		b.Eng.Logger().Info("websocket upgrade failed", "path", s.r.URL.Path, "err", err)
		return false
	}
	s.idleMu.Lock()
	closed := s.closed
	if !closed {
		s.ws = ws
	}
	s.idleMu.Unlock()
	if closed { // its broker connection ended meanwhile
		_ = ws.Close(websocket.CloseInternalError, "broker connection closed")
		return false
	}
	reg := &b.Admin.ws
	reg.mu.Lock()
	if b.Hooks.IsClosed() {
		reg.mu.Unlock()
		_ = ws.Close(websocket.CloseGoingAway, "broker closed")
		return false
	}
	if reg.open == nil {
		reg.open = map[*wsSession]struct{}{}
	}
	reg.open[s] = struct{}{}
	reg.wg.Add(1)
	reg.mu.Unlock()
	s.touch()
	return true
}

// run reads the client's messages until the session ends, then closes it.
func (s *wsSession) run(handle func([]byte)) {
	defer s.b.Admin.ws.wg.Done()
	defer s.close(websocket.CloseNormal, "")
	for {
		op, msg, err := s.ws.ReadMessage()
		if err != nil {
			return
		}
		s.touch()
		if op != websocket.OpText {
			s.close(websocket.CloseUnsupportedData, "text messages only")
			return
		}
		handle(msg)
	}
}

// touch records activity and (re)arms the idle timer on the broker's clock.
func (s *wsSession) touch() {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	s.lastUsed = s.b.Cfg.Clock.Now()
	if s.stopIdle == nil && !s.closed {
		s.stopIdle = s.b.Cfg.Clock.AfterFunc(s.b.Cfg.WebSocket.SessionIdleTimeout, s.idleCheck)
	}
}

// idleCheck closes the session when it has been idle for the timeout,
// else waits for the rest of it.
func (s *wsSession) idleCheck() {
	timeout := s.b.Cfg.WebSocket.SessionIdleTimeout
	s.idleMu.Lock()
	idle := s.b.Cfg.Clock.Now().Sub(s.lastUsed)
	if s.closed {
		s.idleMu.Unlock()
		return
	}
	if idle < timeout {
		s.stopIdle = s.b.Cfg.Clock.AfterFunc(timeout-idle, s.idleCheck)
		s.idleMu.Unlock()
		return
	}
	s.stopIdle = nil
	s.idleMu.Unlock()
	s.close(websocket.CloseGoingAway, "Connection Idle Timeout")
}

// Send writes a JSON message to the client.
func (s *wsSession) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.touch()
	return s.ws.WriteText(b)
}

// close ends the session: the WebSocket with code and its binary
// connection (the broker detaches its producer or consumer). Idempotent.
func (s *wsSession) close(code int, reason string) {
	s.idleMu.Lock()
	if s.closed {
		s.idleMu.Unlock()
		return
	}
	s.closed = true
	if s.stopIdle != nil {
		s.stopIdle()
	}
	ws, bin := s.ws, s.bin
	s.idleMu.Unlock()
	if ws != nil {
		_ = ws.Close(code, reason)
	}
	if bin != nil {
		bin.close()
	}
	reg := &s.b.Admin.ws
	reg.mu.Lock()
	delete(reg.open, s)
	reg.mu.Unlock()
}

// closeWebSockets closes every session and waits for them to end.
func (b *Web) closeWebSockets() {
	if b.Admin == nil {
		return
	}
	reg := &b.Admin.ws
	reg.mu.Lock()
	open := make([]*wsSession, 0, len(reg.open))
	for s := range reg.open {
		open = append(open, s)
	}
	reg.mu.Unlock()
	for _, s := range open {
		s.close(websocket.CloseGoingAway, "broker closed")
	}
	reg.wg.Wait()
}

// setBin records the session's binary connection.
func (s *wsSession) setBin(bin *wsBinary) {
	s.idleMu.Lock()
	s.bin = bin
	s.idleMu.Unlock()
}
