package authn

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

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

// NewToken authenticates with a fixed JWT token. An empty token makes
// Init (NewClient) fail, as the official client's.
func NewToken(token string) Provider {
	return &tokenProvider{supply: func() (string, error) {
		if token == "" {
			return "", errEmptyToken
		}
		return token, nil
	}}
}

// NewTokenFromSupplier authenticates with a token obtained anew at every
// connect and challenge (Init calls it once to check it).
func NewTokenFromSupplier(supplier func() (string, error)) Provider {
	return &tokenProvider{supply: supplier}
}

// NewTokenFromFile authenticates with the token in a file (spaces and
// newlines around it trimmed), read at every connect so a rotated token is
// picked up. Init fails when the file cannot be read or is empty; a file
// larger than 1 MiB is refused.
func NewTokenFromFile(path string) Provider {
	return &tokenProvider{supply: func() (string, error) {
		b, err := ReadFileLimited(path, MaxCredentialFile)
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

// TokenWithParams is the token method of params "token" (the token) or
// "file" (a path, or a file:// URL); neither is an error wrapping
// ErrAuthenticationParams.
func TokenWithParams(m map[string]string) (Provider, error) {
	switch {
	case m["token"] != "":
		return NewToken(m["token"]), nil
	case m["file"] != "":
		return NewTokenFromFile(strings.TrimPrefix(m["file"], "file://")), nil
	}
	return nil, fmt.Errorf("%w: token: missing configuration for token auth", ErrAuthenticationParams)
}

// MaxCredentialFile bounds the credential files read (tokens, OAuth2 key
// files, certificates and keys): 1 MiB.
const MaxCredentialFile = 1 << 20

// ReadFileLimited reads a file of at most limit bytes; a larger one is an
// error, and no more than limit+1 bytes are read.
func ReadFileLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}

// disabled is the method of NewProvider(""): no credentials.
type disabled struct{ transport }

// NewDisabled is no authentication: Name is "", GetData nil, and
// RoundTrip sends requests as they are.
func NewDisabled() Provider { return &disabled{} }

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
