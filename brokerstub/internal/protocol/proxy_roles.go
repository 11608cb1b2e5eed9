package protocol

import (
	"math"
	"slices"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/internal/proto"
)

// validOriginal reports whether role may speak for original
// (auth.Authorizer.ValidOriginal).
func (b *Server) validOriginal(role, original string) bool {
	return b.Eng.Authorizer().ValidOriginal(role, original)
}

// roles returns the connection's role and the original principal it
// speaks for ("" when none).
func (c *Conn) roles() (string, string) {
	c.auth.mu.Lock()
	defer c.auth.mu.Unlock()
	return c.auth.id.Role, c.auth.original
}

// allowedAs applies an authorization check as Pulsar's ServerCnx does for
// a connection that names an original principal (a proxy's): the
// connection's role and the original principal must both pass.
func (c *Conn) allowedAs(allowed func(role string) bool) bool {
	role, original := c.roles()
	if !allowed(role) {
		return false
	}
	if original != "" && !allowed(original) {
		c.log.Info("original principal not authorized", "role", role, "original_principal", original)
		return false
	}
	return true
}

// connectOriginal reads CONNECT's original principal, with authentication
// on, for the connection authenticated as id: the original_principal
// field, or with Options.AuthenticateOriginalAuthData the role that
// original_auth_data proves with original_auth_method's provider (Pulsar
// gives both roles the anonymous role when that method has no provider).
// With authorization on, a proxy role must name one that is not a proxy
// role ("Invalid roles.", AuthorizationError). It reports false when the
// connection was refused: the error is queued as its last frame.
func (c *Conn) connectOriginal(m *proto.CommandConnect, id *auth.Identity) (string, bool) {
	if m.OriginalPrincipal == nil {
		if c.b.Eng.AuthzOn() && !c.b.validOriginal(id.Role, "") {
			c.refuseRoles(id.Role, "")
			return "", false
		}
		return "", true
	}
	original := m.GetOriginalPrincipal()
	if c.b.Cfg.AuthenticateOriginalAuthData {
		method := m.GetOriginalAuthMethod()
		if method == "" {
			method = "none"
		}
		if !slices.Contains(c.b.Cfg.AuthMethods, method) {
			anon := c.b.Cfg.AnonymousUserRole
			if anon == "" {
				c.log.Info("authentication refused: no provider for the original auth method and no anonymous role", "method", method)
				c.refuseAuth(authFailedText)
				return "", false
			}
			id.Role, original = anon, anon
		} else {
			oid, err := c.b.Hooks.Authenticate(method, auth.Credentials{Data: []byte(m.GetOriginalAuthData())}, c.b.Cfg.Clock.Now())
			if err != nil {
				c.log.Info("original auth data refused", "method", method, "err", err)
				c.refuseAuth(authFailedText)
				return "", false
			}
			original = oid.Role
		}
	}
	if c.b.Eng.AuthzOn() && !c.b.validOriginal(id.Role, original) {
		c.refuseRoles(id.Role, original)
		return "", false
	}
	return original, true
}

// refuseRoles answers an invalid pair of role and original principal as
// Pulsar's ServerCnx: ERROR AuthorizationError "Invalid roles.", request id
// -1, and the connection closes.
func (c *Conn) refuseRoles(role, original string) {
	c.log.Info("illegal combination of role and original principal", "role", role, "original_principal", original,
		"proxy_roles", strings.Join(c.b.Cfg.ProxyRoles, ","))
	id := uint64(math.MaxUint64)
	c.writeLast(&proto.BaseCommand{Type: proto.BaseCommand_ERROR.Enum(), Error: &proto.CommandError{
		RequestId: &id, Error: proto.ServerError_AuthorizationError.Enum(), Message: Strp("Invalid roles.")}})
}
