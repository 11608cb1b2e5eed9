package brokerstub

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
)

// httpCredentials reads the credentials of an admin request as Pulsar's
// AuthenticationFilter: "Authorization: Bearer <token>" is the token
// method, "Authorization: Basic <base64 user:password>" basic, a client
// certificate tls, and nothing at all anonymous.
func httpCredentials(r *http.Request) (string, AuthenticationData, bool) {
	var d AuthenticationData
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

// authorizeHTTP authenticates an admin request and checks that its role
// may use the matched route; it returns the refusal to answer, nil when
// the request may go on. /metrics is open, as Pulsar's
// authenticateMetricsEndpoint=false.
func (a *adminServer) authorizeHTTP(r *http.Request, segs []string, p map[string]string) *restError {
	b := a.b
	if !b.authEnabled() && !b.authzOn() {
		return nil
	}
	if len(segs) > 0 && segs[0] == "metrics" {
		return nil
	}
	role := b.opts.AnonymousUserRole
	if b.authEnabled() {
		method, d, ok := httpCredentials(r)
		if !ok {
			return restErr(http.StatusUnauthorized, "Authentication required")
		}
		id, err := b.authenticate(method, d, b.opts.Clock.Now())
		if err != nil {
			b.log.Info("admin authentication refused", "method", method, "path", r.URL.Path, "err", err)
			return restErr(http.StatusUnauthorized, "Authentication required")
		}
		role = id.Role
	}
	if !b.authzOn() || b.isSuperUser(role) || txnReadOpen(r.Method, segs) {
		return nil
	}
	tenant, ok := p["tenant"]
	if !ok {
		return restErr(http.StatusUnauthorized, "This operation requires super-user access")
	}
	if len(segs) > 2 && segs[0] == "admin" && segs[2] == "tenants" {
		if r.Method == http.MethodGet && b.isTenantAdmin(role, tenant) {
			return nil
		}
		return restErr(http.StatusUnauthorized, "This operation requires super-user access")
	}
	if b.isTenantAdmin(role, tenant) {
		return nil
	}
	ns := tenant + "/" + p["ns"]
	_, topicScoped := p["topic"]
	domain := p["domain"]
	if domain == "" && len(segs) > 2 && (segs[2] == "persistent" || segs[2] == nonPersistentDomain) {
		domain = segs[2] // the routes of admin_nonpersistent.go have no {domain}
	}
	listing := len(segs) > 0 && (segs[len(segs)-1] == "topics" || domain != "" && !topicScoped)
	readOnly := r.Method == http.MethodGet || r.Method == http.MethodHead
	if listing && !topicScoped && readOnly && b.allowNamespaceTopics(role, ns) {
		return nil
	}
	act, ok := actLookup, false
	switch {
	case !topicScoped:
	case slices.Contains(segs, "permissions"):
		// A topic's permissions are its tenant admins' (Pulsar's
		// validateAdminAccessForTenant), even to read.
	case readOnly:
		ok = true
	case p["sub"] != "" || strings.Contains(r.URL.Path, "/subscription"):
		act, ok = actConsume, true
	case len(segs) > 2 && segs[2] == "schemas" && r.Method == http.MethodPost:
		act, ok = actProduce, true
	}
	if ok {
		if domain == "" {
			domain = "persistent" // the schema paths have no domain segment
		}
		name, err := parseTopic(domain + "://" + ns + "/" + p["topic"])
		if err == nil && b.allowTopic(role, name, act, p["sub"]) {
			return nil
		}
	}
	b.log.Info("admin authorization refused", "role", role, "method", r.Method, "path", r.URL.Path)
	return restErr(http.StatusForbidden, "Don't have permission to administrate resources on this tenant")
}
