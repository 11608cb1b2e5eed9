package auth

import (
	"crypto/tls"
	"net/http"
)

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
	return newAthenz()
}

// NewAuthenticationAthenzWithParams refuses with ErrAthenzNotSupported
// whatever the params.
func NewAuthenticationAthenzWithParams(params map[string]string) (Provider, error) {
	return nil, ErrAthenzNotSupported
}

// athenzProvider stands for Athenz authentication, which pulsargo does not
// implement: it needs Athenz's ZTS client (role tokens signed with the
// tenant's private key, fetched from and refreshed against ZTS), and the
// only Go library for it is the Athenz project's own, with its dependency
// tree. Code that names the method compiles; Init (NewClient), GetData and
// RoundTrip fail with ErrAthenzNotSupported.
type athenzProvider struct{ transport }

// newAthenz is the Athenz method: it exists so that code written for the
// official client compiles, and refuses with ErrAthenzNotSupported.
func newAthenz() Provider { return &athenzProvider{} }

func (*athenzProvider) Name() string                                 { return "athenz" }
func (*athenzProvider) GetData() ([]byte, error)                     { return nil, ErrAthenzNotSupported }
func (*athenzProvider) Init() error                                  { return ErrAthenzNotSupported }
func (*athenzProvider) GetTLSCertificate() (*tls.Certificate, error) { return nil, nil }
func (*athenzProvider) Close() error                                 { return nil }

func (*athenzProvider) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, ErrAthenzNotSupported
}
