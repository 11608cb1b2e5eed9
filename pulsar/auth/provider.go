package auth

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Provider is an authentication method, as the official client's. The
// constructors of this package and of package pulsar return one, and an
// application's own type that has these methods is one too.
type Provider interface {
	// Init checks the configuration: pulsar.NewClient calls it and fails
	// with its error.
	Init() error
	// Name is the authentication method sent in CONNECT ("token", "tls",
	// "basic"; OAuth2 sends "token"; "" sends no credentials).
	Name() string
	// GetTLSCertificate returns the client certificate presented at TLS
	// handshakes (pulsar+ssl:// and https:// only), nil for none.
	GetTLSCertificate() (*tls.Certificate, error)
	// GetData returns the credentials sent to the broker, called at every
	// connect and every AUTH_CHALLENGE, so that they can refresh.
	GetData() ([]byte, error)
	// Close releases what the provider holds; the client does not call
	// it, as the official client does not.
	io.Closer
	HTTPAuthProvider
}

// HTTPAuthProvider authenticates HTTP requests (the admin API, HTTP
// lookups).
type HTTPAuthProvider interface {
	// RoundTrip sends req, with the provider's credentials, over the
	// transport set with WithTransport (default http.DefaultTransport).
	RoundTrip(req *http.Request) (*http.Response, error)
	// Transport returns the transport set with WithTransport (nil: none
	// set), or for OAuth2 a transport that authenticates over it.
	Transport() http.RoundTripper
	// WithTransport sets the transport RoundTrip sends over.
	WithTransport(tripper http.RoundTripper) error
}

// NewAuthDisabled is no authentication: Name "", no data, and RoundTrip
// sends requests unchanged.
func NewAuthDisabled() Provider { return newDisabled() }

// HTTPTransport holds a transport, as the official client's auth package
// does.
type HTTPTransport struct {
	// T is the transport.
	T http.RoundTripper
}

// Invalidator is implemented by providers that cache credentials:
// Invalidate drops them, after a web service answered 401 (as the official
// client does for OAuth2), so that the next GetData obtains new ones.
type Invalidator interface{ Invalidate() }

// transport is the base transport of a provider's HTTP methods, safe for
// concurrent use.
type transport struct {
	mu sync.RWMutex
	t  http.RoundTripper
}

// base returns the transport set, or http.DefaultTransport.
func (h *transport) base() http.RoundTripper {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.t == nil {
		return http.DefaultTransport
	}
	return h.t
}

// Transport returns the transport set with WithTransport, nil if none.
func (h *transport) Transport() http.RoundTripper {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.t
}

// WithTransport sets the transport RoundTrip sends over.
func (h *transport) WithTransport(t http.RoundTripper) error {
	h.mu.Lock()
	h.t = t
	h.mu.Unlock()
	return nil
}

// withHeader sends a copy of req carrying the header over the base
// transport (a RoundTripper must not modify the request it is given).
func (h *transport) withHeader(req *http.Request, key, value string) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set(key, value)
	return h.base().RoundTrip(r)
}

// NewProvider returns the authentication method named name, with params
// in one of the formats the Pulsar clients accept: a JSON object of
// strings (`{"tlsCertFile":"/c.pem","tlsKeyFile":"/k.pem"}`), or
// "key:value" pairs separated by commas ("tlsCertFile:/c.pem,tlsKeyFile:/k.pem").
// The names are the official client's, short or as Java class names:
//
//	""                                                         none
//	"tls", "org.apache.pulsar.client.impl.auth.AuthenticationTls"      tlsCertFile, tlsKeyFile
//	"token", "org.apache.pulsar.client.impl.auth.AuthenticationToken"  token, or file (a path or file:// URL);
//	                                                           also "token:<jwt>", "file:///path" or the bare token
//	"basic", "org.apache.pulsar.client.impl.auth.AuthenticationBasic"  username (or Java's userId), password
//	"oauth2", "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2"
//	                                                           the parameters of NewAuthenticationOAuth2WithParams
//	"athenz", "org.apache.pulsar.client.impl.auth.AuthenticationAthenz"
//	                                                           ErrAthenzNotSupported
//
// Malformed params, a missing parameter or an unknown name return an error
// wrapping ErrAuthenticationParams.
func NewProvider(name string, params string) (Provider, error) {
	switch name {
	case "":
		return newDisabled(), nil
	case "token", "org.apache.pulsar.client.impl.auth.AuthenticationToken":
		return tokenFromParams(params)
	case "athenz", "org.apache.pulsar.client.impl.auth.AuthenticationAthenz":
		return nil, ErrAthenzNotSupported
	}
	m, err := parseParams(params)
	if err != nil {
		return nil, err
	}
	switch name {
	case "tls", "org.apache.pulsar.client.impl.auth.AuthenticationTls":
		if m["tlsCertFile"] == "" || m["tlsKeyFile"] == "" {
			return nil, fmt.Errorf("%w: tls: tlsCertFile and tlsKeyFile are required", ErrAuthenticationParams)
		}
		return newTLS(m["tlsCertFile"], m["tlsKeyFile"]), nil
	case "basic", "org.apache.pulsar.client.impl.auth.AuthenticationBasic":
		return basicWithParams(m)
	case "oauth2", "org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2":
		a, err := newOAuth2(m)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("%w: invalid auth provider '%s'", ErrAuthenticationParams, name)
}

// tokenFromParams reads the token method's params: JSON or pairs with
// "token" or "file", or Java's "token:<jwt>" / "file:<url>" / bare token.
func tokenFromParams(params string) (Provider, error) {
	p := strings.TrimSpace(params)
	switch {
	case strings.HasPrefix(p, "{"):
		m, err := parseParams(p)
		if err != nil {
			return nil, err
		}
		return tokenWithParams(m)
	case strings.HasPrefix(p, "token:"):
		return newToken(strings.TrimPrefix(p, "token:")), nil
	case strings.HasPrefix(p, "file:"):
		return newTokenFromFile(strings.TrimPrefix(strings.TrimPrefix(p, "file:"), "//")), nil
	case p == "":
		return nil, fmt.Errorf("%w: token: missing configuration for token auth", ErrAuthenticationParams)
	}
	return newToken(p), nil
}

// MaxParams bounds the params string NewProvider (and
// pulsar.NewAuthentication) parses: 64 KiB; a longer one is an error
// wrapping ErrAuthenticationParams.
const MaxParams = 64 << 10

// parseParams parses a JSON object of strings or "k:v,k:v" pairs (the
// value is what follows the first colon, so paths and URLs keep theirs).
func parseParams(params string) (map[string]string, error) {
	if len(params) > MaxParams {
		return nil, fmt.Errorf("%w: params longer than %d bytes", ErrAuthenticationParams, MaxParams)
	}
	p := strings.TrimSpace(params)
	m := map[string]string{}
	if p == "" {
		return m, nil
	}
	if strings.HasPrefix(p, "{") {
		if err := json.Unmarshal([]byte(p), &m); err != nil {
			return nil, fmt.Errorf("%w: params are not a JSON object of strings: %w", ErrAuthenticationParams, err)
		}
		return m, nil
	}
	for pair := range strings.SplitSeq(p, ",") {
		k, v, ok := strings.Cut(pair, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: params pair %q is not key:value", ErrAuthenticationParams, pair)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}
