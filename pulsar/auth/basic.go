package auth

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net/http"
)

// NewAuthenticationBasic authenticates with a user name and password, sent
// as "user:password" in CONNECT and as "Authorization: Basic" over HTTP.
// Both are required: an empty one is an error wrapping
// ErrAuthenticationParams.
func NewAuthenticationBasic(username, password string) (Provider, error) {
	return newBasic(username, password)
}

// NewAuthenticationBasicWithParams is NewAuthenticationBasic with params
// "username" (or Java's "userId") and "password".
func NewAuthenticationBasicWithParams(params map[string]string) (Provider, error) {
	return basicWithParams(params)
}

// basicProvider is HTTP-basic style authentication: CONNECT carries
// "user:password", HTTP requests an "Authorization: Basic" header.
type basicProvider struct {
	data []byte
	transport
}

func (*basicProvider) Name() string                                 { return "basic" }
func (a *basicProvider) GetData() ([]byte, error)                   { return a.data, nil }
func (*basicProvider) Init() error                                  { return nil }
func (*basicProvider) GetTLSCertificate() (*tls.Certificate, error) { return nil, nil }
func (*basicProvider) Close() error                                 { return nil }

// RoundTrip sends req with "Authorization: Basic base64(user:password)".
func (a *basicProvider) RoundTrip(req *http.Request) (*http.Response, error) {
	return a.withHeader(req, "Authorization", "Basic "+base64.StdEncoding.EncodeToString(a.data))
}

// newBasic authenticates with a user name and password (Pulsar's
// AuthenticationProviderBasic checks them against its htpasswd file).
// Both are required: an empty one is an error wrapping
// ErrAuthenticationParams.
func newBasic(username, password string) (Provider, error) {
	if username == "" {
		return nil, fmt.Errorf("%w: basic: username cannot be empty", ErrAuthenticationParams)
	}
	if password == "" {
		return nil, fmt.Errorf("%w: basic: password cannot be empty", ErrAuthenticationParams)
	}
	return &basicProvider{data: []byte(username + ":" + password)}, nil
}

// basicWithParams is NewBasic with params "username" (or Java's "userId")
// and "password".
func basicWithParams(m map[string]string) (Provider, error) {
	user := m["username"]
	if user == "" {
		user = m["userId"]
	}
	return newBasic(user, m["password"])
}
