package authn

import (
	"crypto/tls"
	"net/http"
)

// athenzProvider stands for Athenz authentication, which pulsargo does not
// implement: it needs Athenz's ZTS client (role tokens signed with the
// tenant's private key, fetched from and refreshed against ZTS), and the
// only Go library for it is the Athenz project's own, with its dependency
// tree. Code that names the method compiles; Init (NewClient), GetData and
// RoundTrip fail with ErrAthenzNotSupported.
type athenzProvider struct{ transport }

// NewAthenz is the Athenz method: it exists so that code written for the
// official client compiles, and refuses with ErrAthenzNotSupported.
func NewAthenz() Provider { return &athenzProvider{} }

func (*athenzProvider) Name() string                                 { return "athenz" }
func (*athenzProvider) GetData() ([]byte, error)                     { return nil, ErrAthenzNotSupported }
func (*athenzProvider) Init() error                                  { return ErrAthenzNotSupported }
func (*athenzProvider) GetTLSCertificate() (*tls.Certificate, error) { return nil, nil }
func (*athenzProvider) Close() error                                 { return nil }

func (*athenzProvider) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, ErrAthenzNotSupported
}
