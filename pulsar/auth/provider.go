package auth

import (
	"crypto/tls"
	"io"
	"net/http"

	"github.com/pulsargo/sdk/internal/authn"
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

// HTTPTransport holds a transport (T), as the official client's.
type HTTPTransport = authn.HTTPTransport

// The errors of the authentication methods. errors.Is matches an error
// with these and with package pulsar's of the same names alike.
var (
	// ErrAuthenticationData: the credentials could not be obtained. Result
	// ErrorGettingAuthenticationData.
	ErrAuthenticationData = authn.ErrAuthenticationData
	// ErrAuthenticationParams: the parameters of a method are malformed or
	// missing, or name no method. Result InvalidConfiguration.
	ErrAuthenticationParams = authn.ErrAuthenticationParams
	// ErrAthenzNotSupported: Athenz authentication is not implemented.
	// Result InvalidConfiguration.
	ErrAthenzNotSupported = authn.ErrAthenzNotSupported
)

// NewProvider returns the authentication method named name ("", "tls",
// "token", "basic", "oauth2", "athenz", or their Java class names) with
// params as a JSON object of strings or "key:value" pairs separated by
// commas (the official client takes JSON only). Malformed params, a
// missing parameter or an unknown name return an error wrapping
// ErrAuthenticationParams; "athenz" returns ErrAthenzNotSupported.
func NewProvider(name string, params string) (Provider, error) {
	return authn.NewProvider(name, params)
}

// NewAuthDisabled is no authentication: Name "", no data, and RoundTrip
// sends requests unchanged.
func NewAuthDisabled() Provider { return authn.NewDisabled() }
