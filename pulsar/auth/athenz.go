package auth

import "github.com/pulsargo/sdk/internal/authn"

// NewAuthenticationAthenz exists so that code written for the official
// client compiles: Athenz is not implemented (it needs Athenz's ZTS
// client), and the provider's Init (pulsar.NewClient), GetData and
// RoundTrip fail with ErrAthenzNotSupported whatever the arguments.
func NewAuthenticationAthenz(
	providerDomain string,
	tenantDomain string,
	tenantService string,
	privateKey string,
	keyID string,
	x509CertChain string,
	caCert string,
	principalHeader string,
	roleHeader string,
	ztsURL string,
	ztsProxyURL string) Provider {
	return authn.NewAthenz()
}

// NewAuthenticationAthenzWithParams refuses with ErrAthenzNotSupported
// whatever the params.
func NewAuthenticationAthenzWithParams(params map[string]string) (Provider, error) {
	return nil, ErrAthenzNotSupported
}
