// Package auth is brokerstub's authentication and authorization room:
// the credential checks of Pulsar's providers (token, TLS, basic), the
// operation model every admin route declares (Op, Scope) and the wildcard
// matching of granted roles. It knows nothing of the broker: brokerstub
// adapts its public AuthenticationProvider, AuthenticationData and
// Identity onto Provider, Credentials and Identity here, and keeps the
// grants in its policy store.
package auth

import (
	"crypto/x509"
	"errors"
	"fmt"
	"time"
)

// ErrRefused is wrapped by every refusal of credentials here;
// brokerstub presents these refusals as its ErrAuthentication
// (Refusal).
var ErrRefused = errors.New("credentials refused")

// refusal is a refusal of credentials: its text says why, and it is
// ErrRefused.
type refusal struct{ why string }

func (r *refusal) Error() string        { return r.why }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

// Errorf returns a refusal of credentials that says why.
func Errorf(format string, args ...any) error {
	return &refusal{fmt.Sprintf(format, args...)}
}

// MaxData bounds the credentials the stub reads; longer ones are refused
// before they are parsed.
const MaxData = 64 << 10

// Credentials are what a client presents: CONNECT's auth_data, or the
// credentials of an HTTP Authorization header, and the client
// certificates of a TLS connection (nil on a plain one).
type Credentials struct {
	Data             []byte
	PeerCertificates []*x509.Certificate
}

// Identity is an authenticated role, with when its credentials expire
// and when they become valid (zero: never, always).
type Identity struct {
	Role      string
	Expires   time.Time
	NotBefore time.Time
}

// Provider checks one authentication method's credentials.
type Provider interface {
	// MethodName is the method clients name: "token", "tls" or "basic".
	MethodName() string
	// Authenticate returns the identity the credentials prove, or an
	// error saying why not.
	Authenticate(Credentials) (Identity, error)
}

// CheckValidity refuses id at now when its credentials have expired or
// are not valid yet.
func CheckValidity(id Identity, now time.Time) error {
	if !id.Expires.IsZero() && !now.Before(id.Expires) {
		return Errorf("credentials expired at %s", id.Expires.UTC().Format(time.RFC3339))
	}
	if now.Before(id.NotBefore) {
		return Errorf("credentials not valid before %s", id.NotBefore.UTC().Format(time.RFC3339))
	}
	return nil
}
