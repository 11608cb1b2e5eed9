package admin

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
	"github.com/pulsargo/sdk/brokerstub/internal/engine"
)

// HttpCredentials reads the credentials of an admin request as Pulsar's
// AuthenticationFilter: "Authorization: Bearer <token>" is the token
// method, "Authorization: Basic <base64 user:password>" basic, a client
// certificate tls, and nothing at all anonymous.
func HttpCredentials(r *http.Request) (string, auth.Credentials, bool) {
	var d auth.Credentials
	if r.TLS != nil {
		d.PeerCertificates = r.TLS.PeerCertificates
	}
	h := r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(h, " ")
	switch {
	case h == "":
		if len(d.PeerCertificates) > 0 {
			return "tls", d, true
		}
		return "", d, true
	case strings.EqualFold(scheme, "Bearer"):
		d.Data = []byte(strings.TrimSpace(cred))
		return "token", d, true
	case strings.EqualFold(scheme, "Basic"):
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
		if err != nil {
			return "basic", d, false
		}
		d.Data = raw
		return "basic", d, true
	}
	return scheme, d, false
}

// authorizeHTTP authenticates an admin request, returns its role and checks that it
// may do the operation route rt declares on what its captures p name
// (authorizeAdmin); it returns the refusal to answer, nil when the request
// may go on. Routes declared opOpen (/metrics, as Pulsar's
// authenticateMetricsEndpoint=false, and /status.html) need no
// credentials.
func (a *Server) authorizeHTTP(r *http.Request, rt *Route, p map[string]string) (string, *engine.RestError) {
	b := a.b
	if !b.Eng.AuthEnabled() && !b.Eng.AuthzOn() || rt.Op == opOpen {
		return b.Cfg.AnonymousUserRole, nil
	}
	role := b.Cfg.AnonymousUserRole
	if b.Eng.AuthEnabled() {
		method, d, ok := HttpCredentials(r)
		if !ok {
			return "", engine.RestErr(http.StatusUnauthorized, "Authentication required")
		}
		id, err := b.Hooks.Authenticate(method, d, b.Cfg.Clock.Now())
		if err != nil {
			b.Eng.Logger().Info("admin authentication refused", "method", method, "path", r.URL.Path, "err", err)
			return "", engine.RestErr(http.StatusUnauthorized, "Authentication required")
		}
		role = id.Role
	}
	if !b.Eng.AuthzOn() {
		return role, nil
	}
	if re := b.authorizeAdminAs(r, role, rt.Op, adminTargetOf(rt, p)); re != nil { // authz_admin.go
		b.Eng.Logger().Info("admin authorization refused", "role", role, "operation", rt.Op.String(), "method", r.Method, "path", r.URL.Path)
		return role, re
	}
	return role, nil
}
