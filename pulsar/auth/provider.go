package auth

import "github.com/pulsargo/sdk/internal/authn"

// Provider is an authentication method, as the official client's: Init
// checks its configuration (pulsar.NewClient calls it and fails with its
// error), Name is the method sent in CONNECT ("" sends no credentials),
// GetData the credentials (called at every connect and every
// AUTH_CHALLENGE), GetTLSCertificate the client certificate presented at
// TLS handshakes (nil: none), Close releases what it holds (the client
// does not call it, as the official client does not), and the
// HTTPAuthProvider methods authenticate HTTP requests.
type Provider = authn.Provider

// HTTPAuthProvider authenticates HTTP requests: RoundTrip adds the
// provider's credentials and sends the request over the transport set with
// WithTransport (default http.DefaultTransport).
type HTTPAuthProvider = authn.HTTPAuthProvider

// HTTPTransport holds a transport (T), as the official client's.
type HTTPTransport = authn.HTTPTransport

// The errors of the authentication methods (the same values as package
// pulsar's of the same names).
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
