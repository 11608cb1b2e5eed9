package pulsar

import (
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"strings"
)

// Authentication supplies credentials sent when connecting. The methods of
// this package (token, TLS, basic, OAuth2, or any of them by name through
// NewAuthentication) implement it; a method whose Name is "" sends none.
type Authentication interface {
	// Name is the authentication method name sent to the broker ("token",
	// "tls", "basic"; OAuth2 sends "token").
	Name() string
	// Data returns the credentials; it is called on every (re)connect and
	// on every AUTH_CHALLENGE of the broker, so they can refresh.
	Data() ([]byte, error)
}

// authInit is implemented by methods that check their configuration when
// the client is created, as the official client's Provider.Init: NewClient
// fails with its error.
type authInit interface{ init() error }

// authTLS is implemented by methods that authenticate with a TLS client
// certificate; it is called at every TLS handshake (pulsar+ssl and https).
type authTLS interface {
	tlsCertificate() (*tls.Certificate, error)
}

// authInvalidate is implemented by methods that cache credentials: it
// drops them after a web service answered 401, as the official client does
// for OAuth2.
type authInvalidate interface{ invalidate() }

// tokenAuth is a token method; init calls supply once, as the official
// client's Init does.
type tokenAuth struct{ supply func() (string, error) }

func (tokenAuth) Name() string { return "token" }

func (a tokenAuth) Data() ([]byte, error) {
	t, err := a.supply()
	if err != nil {
		return nil, fmt.Errorf("%w: token: %w", ErrAuthenticationData, err)
	}
	return []byte(t), nil
}

func (a tokenAuth) init() error {
	_, err := a.Data()
	return err
}

// errEmptyToken is the official client's refusal of an empty token.
var errEmptyToken = fmt.Errorf("empty token credentials")

// NewAuthenticationToken authenticates with a fixed JWT token. An empty
// token makes NewClient fail, as the official client's.
func NewAuthenticationToken(token string) Authentication {
	return tokenAuth{supply: func() (string, error) {
		if token == "" {
			return "", errEmptyToken
		}
		return token, nil
	}}
}

// NewAuthenticationTokenFromSupplier authenticates with a token obtained
// anew at every connect and challenge (NewClient calls it once to check it).
func NewAuthenticationTokenFromSupplier(supplier func() (string, error)) Authentication {
	return tokenAuth{supply: supplier}
}

// NewAuthenticationTokenFromFile authenticates with the token in a file
// (spaces and newlines around it trimmed), read at every connect so a
// rotated token is picked up. NewClient fails when the file cannot be read
// or is empty; a file larger than 1 MiB is refused.
func NewAuthenticationTokenFromFile(path string) Authentication {
	return tokenAuth{supply: func() (string, error) {
		b, err := readFileLimited(path, maxCredentialFile)
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

// maxCredentialFile bounds the credential files read (tokens, OAuth2 key
// files, certificates and keys).
const maxCredentialFile = 1 << 20

// readFileLimited reads a file of at most limit bytes; a larger one is an
// error, and no more than limit+1 bytes are read.
func readFileLimited(path string, limit int64) ([]byte, error) {
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

// authDisabled is the method of NewAuthentication("", ...): no
// credentials.
type authDisabled struct{}

func (authDisabled) Name() string          { return "" }
func (authDisabled) Data() ([]byte, error) { return nil, nil }
