package auth

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/internal/limitedfile"
)

// NewAuthenticationToken authenticates with a fixed JWT token, sent in
// CONNECT and as "Authorization: Bearer" over HTTP. An empty token makes
// Init fail.
func NewAuthenticationToken(token string) Provider { return newToken(token) }

// NewAuthenticationTokenFromSupplier authenticates with the token the
// supplier returns, called at every connect, challenge and HTTP request
// (and once by Init, which fails with its error).
func NewAuthenticationTokenFromSupplier(tokenSupplier func() (string, error)) Provider {
	return newTokenFromSupplier(tokenSupplier)
}

// NewAuthenticationTokenFromFile authenticates with the token in a file
// (trimmed of surrounding spaces and newlines), read at every use so a
// rotated token is picked up; Init fails when it cannot be read, is empty
// or is larger than 1 MiB.
func NewAuthenticationTokenFromFile(tokenFilePath string) Provider {
	return newTokenFromFile(tokenFilePath)
}

// NewAuthenticationTokenWithParams is the token method of params "token"
// (the token) or "file" (a path or file:// URL); with neither it returns an
// error wrapping ErrAuthenticationParams.
func NewAuthenticationTokenWithParams(params map[string]string) (Provider, error) {
	return tokenWithParams(params)
}

// tokenProvider is a token method: CONNECT carries the token, HTTP
// requests an "Authorization: Bearer" header. Init calls supply once, as
// the official client's Init does.
type tokenProvider struct {
	supply func() (string, error)
	transport
}

func (*tokenProvider) Name() string { return "token" }

func (a *tokenProvider) GetData() ([]byte, error) {
	t, err := a.supply()
	if err != nil {
		return nil, fmt.Errorf("%w: token: %w", ErrAuthenticationData, err)
	}
	return []byte(t), nil
}

func (a *tokenProvider) Init() error {
	_, err := a.GetData()
	return err
}

func (*tokenProvider) GetTLSCertificate() (*tls.Certificate, error) { return nil, nil }
func (*tokenProvider) Close() error                                 { return nil }

// RoundTrip sends req with "Authorization: Bearer <token>"; a token that
// cannot be obtained fails the request (the official client sends an
// empty bearer instead).
func (a *tokenProvider) RoundTrip(req *http.Request) (*http.Response, error) {
	t, err := a.GetData()
	if err != nil {
		return nil, err
	}
	return a.withHeader(req, "Authorization", "Bearer "+string(t))
}

// errEmptyToken is the official client's refusal of an empty token.
var errEmptyToken = fmt.Errorf("empty token credentials")

// newToken authenticates with a fixed JWT token. An empty token makes
// Init (NewClient) fail, as the official client's.
func newToken(token string) Provider {
	return &tokenProvider{supply: func() (string, error) {
		if token == "" {
			return "", errEmptyToken
		}
		return token, nil
	}}
}

// newTokenFromSupplier authenticates with a token obtained anew at every
// connect and challenge (Init calls it once to check it).
func newTokenFromSupplier(supplier func() (string, error)) Provider {
	return &tokenProvider{supply: supplier}
}

// newTokenFromFile authenticates with the token in a file (spaces and
// newlines around it trimmed), read at every connect so a rotated token is
// picked up. Init fails when the file cannot be read or is empty; a file
// larger than 1 MiB is refused.
func newTokenFromFile(path string) Provider {
	return &tokenProvider{supply: func() (string, error) {
		b, err := limitedfile.Read(path, MaxCredentialFile)
		if err != nil {
			return "", err
		}
		t := strings.Trim(string(b), " \r\n\t")
		if t == "" {
			return "", errEmptyToken
		}
		return t, nil
	}}
}

// tokenWithParams is the token method of params "token" (the token) or
// "file" (a path, or a file:// URL); neither is an error wrapping
// ErrAuthenticationParams.
func tokenWithParams(m map[string]string) (Provider, error) {
	switch {
	case m["token"] != "":
		return newToken(m["token"]), nil
	case m["file"] != "":
		return newTokenFromFile(strings.TrimPrefix(m["file"], "file://")), nil
	}
	return nil, fmt.Errorf("%w: token: missing configuration for token auth", ErrAuthenticationParams)
}

// MaxCredentialFile bounds the credential files read (tokens, OAuth2 key
// files, certificates and keys): 1 MiB.
const MaxCredentialFile = 1 << 20

// disabled is the method of NewProvider(""): no credentials.
type disabled struct{ transport }

// newDisabled is no authentication: Name is "", GetData nil, and
// RoundTrip sends requests as they are.
func newDisabled() Provider { return &disabled{} }

func (*disabled) Init() error                                  { return nil }
func (*disabled) Name() string                                 { return "" }
func (*disabled) GetData() ([]byte, error)                     { return nil, nil }
func (*disabled) GetTLSCertificate() (*tls.Certificate, error) { return nil, nil }
func (*disabled) Close() error                                 { return nil }

// RoundTrip sends req unchanged (the official client's answers nil, nil,
// which http.Client refuses).
func (a *disabled) RoundTrip(req *http.Request) (*http.Response, error) {
	return a.base().RoundTrip(req)
}
