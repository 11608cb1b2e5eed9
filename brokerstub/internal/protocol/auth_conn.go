package protocol

import (
	"math"
	"sync"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/internal/proto"
)

// connAuth is a connection's authenticated identity, set by CONNECT and
// AUTH_RESPONSE on the reader goroutine and checked by the refresh timer.
type connAuth struct {
	mu     sync.Mutex
	method string
	id     auth.Identity
	// original is the principal a proxy connects for (CONNECT's
	// original_principal; proxy_roles.go), "" when none.
	original string
	pending  bool        // an AUTH_CHALLENGE is unanswered
	stop     func() bool // the refresh timer; nil when none
	closed   bool
	version  int32 // the protocol version of the challenges
}

// Role returns the connection's role ("" before CONNECT or without
// authentication and an anonymous role).
func (c *Conn) Role() string {
	c.auth.mu.Lock()
	defer c.auth.mu.Unlock()
	return c.auth.id.Role
}

// authFailedText is what a client refused at CONNECT or AUTH_RESPONSE is
// told, whatever the reason (Pulsar's text): why is logged, not sent, so
// that a client cannot tell an unknown user from a wrong password.
const authFailedText = "Failed to authenticate"

// refuseAuth answers a failed authentication as Pulsar does: ERROR
// AuthenticationError with request id -1, then the connection closes, so
// that each guess costs a new connection.
func (c *Conn) refuseAuth(msg string) {
	id := uint64(math.MaxUint64)
	c.writeLast(&proto.BaseCommand{Type: proto.BaseCommand_ERROR.Enum(), Error: &proto.CommandError{
		RequestId: &id, Error: proto.ServerError_AuthenticationError.Enum(), Message: &msg}})
}

// authenticateConnect checks CONNECT's credentials and, for credentials
// that expire, starts the refresh timer. It reports false when the
// connection was refused: the error is queued as its last frame.
func (c *Conn) authenticateConnect(m *proto.CommandConnect) bool {
	if c.preset != nil {
		c.auth.mu.Lock()
		c.auth.id = *c.preset
		c.auth.mu.Unlock()
		return true
	}
	if !c.b.Eng.AuthEnabled() {
		c.auth.mu.Lock()
		c.auth.id = auth.Identity{Role: c.b.Cfg.AnonymousUserRole}
		c.auth.mu.Unlock()
		return true
	}
	method := m.GetAuthMethodName()
	id, err := c.b.Hooks.Authenticate(method, auth.Credentials{Data: m.GetAuthData(), PeerCertificates: peerCertificates(c.nc)}, c.b.Cfg.Clock.Now())
	if err != nil {
		c.log.Info("authentication refused", "method", method, "err", err)
		c.refuseAuth(authFailedText)
		return false
	}
	original, ok := c.connectOriginal(m, &id) // proxy_roles.go
	if !ok {
		return false
	}
	c.auth.mu.Lock()
	c.auth.method, c.auth.id, c.auth.original = method, id, original
	c.auth.version = min(m.GetProtocolVersion(), maxProtocolVersion)
	c.auth.mu.Unlock()
	if !id.Expires.IsZero() {
		c.scheduleAuthRefresh()
	}
	c.log.Debug("authenticated", "method", method, "role", id.Role)
	return true
}

func (c *Conn) scheduleAuthRefresh() {
	c.auth.mu.Lock()
	defer c.auth.mu.Unlock()
	if c.auth.closed {
		return
	}
	c.auth.stop = c.b.Cfg.Clock.AfterFunc(c.b.Cfg.AuthenticationRefreshCheck, c.refreshAuth)
}

// refreshAuth is Pulsar's authentication refresh check: once the
// credentials have expired the broker challenges the client, and a client
// that has not answered by the next check is disconnected.
func (c *Conn) refreshAuth() {
	c.auth.mu.Lock()
	if c.auth.closed {
		c.auth.mu.Unlock()
		return
	}
	expired := !c.auth.id.Expires.IsZero() && !c.b.Cfg.Clock.Now().Before(c.auth.id.Expires)
	if expired && c.auth.pending {
		c.auth.mu.Unlock()
		c.log.Info("client did not answer the authentication challenge in time; closing connection")
		c.Close()
		return
	}
	method, version := c.auth.method, c.auth.version
	if expired {
		c.auth.pending = true
	}
	c.auth.mu.Unlock()
	if expired {
		c.write(&proto.BaseCommand{Type: proto.BaseCommand_AUTH_CHALLENGE.Enum(), AuthChallenge: &proto.CommandAuthChallenge{
			ServerVersion:   Strp(serverVersion),
			ProtocolVersion: &version,
			Challenge:       &proto.AuthData{AuthMethodName: Strp(method), AuthData: []byte("refresh")},
		}})
	}
	c.scheduleAuthRefresh()
}

// handleAuthResponse checks the credentials a client sent in answer to
// AUTH_CHALLENGE; it reports false (the connection closes) when they do
// not check out or name another method.
func (c *Conn) handleAuthResponse(m *proto.CommandAuthResponse) bool {
	r := m.GetResponse()
	c.auth.mu.Lock()
	method := c.auth.method
	c.auth.mu.Unlock()
	if r.GetAuthMethodName() != method {
		c.log.Info("AUTH_RESPONSE for another method; closing connection", "method", r.GetAuthMethodName())
		return false
	}
	id, err := c.b.Hooks.Authenticate(method, auth.Credentials{Data: r.GetAuthData(), PeerCertificates: peerCertificates(c.nc)}, c.b.Cfg.Clock.Now())
	if err != nil {
		c.log.Info("refreshed credentials refused; closing connection", "err", err)
		c.refuseAuth(authFailedText)
		return true // the connection closes once the error is written
	}
	c.auth.mu.Lock()
	defer c.auth.mu.Unlock()
	if id.Role != c.auth.id.Role {
		c.log.Info("refreshed credentials name another role; closing connection", "role", id.Role)
		return false
	}
	c.auth.id, c.auth.pending = id, false
	return true
}

// stopAuth stops the refresh timer when the connection closes.
func (c *Conn) stopAuth() {
	c.auth.mu.Lock()
	defer c.auth.mu.Unlock()
	c.auth.closed = true
	if c.auth.stop != nil {
		c.auth.stop()
	}
}
