package brokerstub

import (
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
)

// ErrAuthentication is wrapped by every refusal of credentials: the binary
// protocol answers it with AuthenticationError, the admin API with 401.
var ErrAuthentication = errors.New("brokerstub: authentication failed")

// AuthenticationProvider checks one authentication method's credentials,
// as Pulsar's AuthenticationProvider classes named in
// authenticationProviders. NewTokenProvider, NewTLSProvider and
// NewBasicProvider make Pulsar's three; a test may bring its own.
type AuthenticationProvider interface {
	// AuthMethodName is the method clients name in CONNECT's
	// auth_method_name: "token", "tls" or "basic".
	AuthMethodName() string
	// Authenticate returns the identity the credentials prove, or an
	// error wrapping ErrAuthentication.
	Authenticate(AuthenticationData) (Identity, error)
}

// AuthenticationData is what a client presents: CONNECT's auth_data (or
// the credentials of an HTTP Authorization header: the token of Bearer,
// "user:password" of Basic) and the client certificates of a TLS
// connection (nil on a plain one).
type AuthenticationData struct {
	Data             []byte
	PeerCertificates []*x509.Certificate
}

// Identity is an authenticated client: its role (Pulsar's principal) and,
// for credentials that expire, when they do (zero: never); for credentials
// not valid yet (a token's nbf), when they become valid (zero: always).
// The broker checks both at its Options.Clock.
type Identity struct {
	Role      string
	Expires   time.Time
	NotBefore time.Time
}

// authnError wraps ErrAuthentication with why.
func authnError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrAuthentication, fmt.Sprintf(format, args...))
}

// maxAuthData bounds the credentials the stub reads; longer ones are
// refused before they are parsed.
const maxAuthData = auth.MaxData

// authenticate checks the credentials of method at time now. An empty
// method, or "none", is the anonymous role when Options.AnonymousUserRole
// is set. With authentication disabled every client is the anonymous role
// (or "").
func (b *Broker) authenticate(method string, d AuthenticationData, now time.Time) (Identity, error) {
	if !b.eng.AuthEnabled() {
		return Identity{Role: b.opts.AnonymousUserRole}, nil
	}
	if len(d.Data) > maxAuthData {
		return Identity{}, authnError("credentials of %d bytes, more than %d", len(d.Data), maxAuthData)
	}
	if method == "" || method == "none" {
		if b.opts.AnonymousUserRole != "" {
			return Identity{Role: b.opts.AnonymousUserRole}, nil
		}
		return Identity{}, authnError("no credentials, and no anonymous role")
	}
	i := slices.IndexFunc(b.opts.AuthenticationProviders, func(p AuthenticationProvider) bool { return p.AuthMethodName() == method })
	if i < 0 {
		if b.opts.AnonymousUserRole != "" {
			return Identity{Role: b.opts.AnonymousUserRole}, nil
		}
		return Identity{}, authnError("no provider for authentication method %q", method)
	}
	id, err := b.opts.AuthenticationProviders[i].Authenticate(d)
	if err != nil {
		if !errors.Is(err, ErrAuthentication) {
			err = fmt.Errorf("%w: %w", ErrAuthentication, err)
		}
		return Identity{}, err
	}
	if err := auth.CheckValidity(auth.Identity(id), now); err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrAuthentication, err)
	}
	return id, nil
}

// authenticateCredentials is authenticate for the protocol (server.go),
// which holds credentials and identities as internal/auth does.
func (b *Broker) authenticateCredentials(method string, cr auth.Credentials, now time.Time) (auth.Identity, error) {
	id, err := b.authenticate(method, AuthenticationData(cr), now)
	return auth.Identity(id), err
}
