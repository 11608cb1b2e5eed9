package brokerstub

import (
	"crypto"
	"fmt"

	"github.com/pulsargo/sdk/brokerstub/internal/auth"
)

// The providers' checks live in internal/auth; this file is their public
// face: the options, the key readers and the constructors users call.

// TokenOptions configure Pulsar's AuthenticationProviderToken: JWTs
// signed with SecretKey (HS256/384/512) or by the private half of
// PublicKey (RS256/384/512 for an *rsa.PublicKey, ES256/384/512 for an
// *ecdsa.PublicKey). Exactly one of the keys is set.
type TokenOptions struct {
	// SecretKey is Pulsar's tokenSecretKey (see ReadTokenKey).
	SecretKey []byte
	// PublicKey is Pulsar's tokenPublicKey (see ParseTokenPublicKey).
	PublicKey crypto.PublicKey
	// Claim is the claim that names the role (Pulsar's tokenAuthClaim).
	// Default "sub".
	Claim string
	// Audience, when set, must be among the token's aud claim; AudienceClaim
	// names that claim (Pulsar's tokenAudience and tokenAudienceClaim,
	// default "aud").
	Audience, AudienceClaim string
}

// ReadTokenKey reads a key as Pulsar's tokenSecretKey and tokenPublicKey
// accept it: "data:;base64,<key>", "file:///path", a file path, or the
// key in base64.
func ReadTokenKey(s string) ([]byte, error) { return auth.ReadTokenKey(s) }

// ParseTokenPublicKey parses a public key in DER (X.509
// SubjectPublicKeyInfo, as Pulsar's tokens create-key-pair writes it) or
// PEM.
func ParseTokenPublicKey(b []byte) (crypto.PublicKey, error) { return auth.ParseTokenPublicKey(b) }

// NewTokenProvider returns Pulsar's AuthenticationProviderToken (method
// "token"). Expired tokens (exp) and tokens not valid yet (nbf) are
// refused at the broker's clock.
func NewTokenProvider(o TokenOptions) (AuthenticationProvider, error) {
	p, err := auth.NewToken(auth.TokenConfig(o))
	if err != nil {
		return nil, err
	}
	return provider{p}, nil
}

// errBasicAuthConf is wrapped by the errors of ReadBasicAuthConf and
// NewBasicProvider.
var errBasicAuthConf = auth.ErrBasicAuthConf

// ReadBasicAuthConf reads Pulsar's basicAuthConf: a file path (or
// file:// URL), or the htpasswd content in base64.
func ReadBasicAuthConf(s string) ([]byte, error) { return auth.ReadBasicAuthConf(s) }

// NewBasicProvider returns Pulsar's AuthenticationProviderBasic (method
// "basic"; the client sends "user:password") for an htpasswd file whose
// lines are "user:hash", the hash MD5-crypt ("$apr1$...") or bcrypt
// ("$2y$", "$2a$", "$2b$"), as Pulsar accepts them. The role is the user.
func NewBasicProvider(htpasswd []byte) (AuthenticationProvider, error) {
	p, err := auth.NewBasic(htpasswd)
	if err != nil {
		return nil, err
	}
	return provider{p}, nil
}

// NewTLSProvider returns Pulsar's AuthenticationProviderTls: the role is
// the common name of the client certificate of the TLS connection (method
// "tls"). Verifying the certificate is the TLS listener's (Options.TLS's
// ClientCAs).
func NewTLSProvider() AuthenticationProvider { return provider{auth.NewTLS()} }

// provider is an auth.Provider seen as an AuthenticationProvider.
type provider struct{ p auth.Provider }

func (p provider) AuthMethodName() string { return p.p.MethodName() }

func (p provider) Authenticate(d AuthenticationData) (Identity, error) {
	id, err := p.p.Authenticate(auth.Credentials(d))
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrAuthentication, err)
	}
	return Identity(id), nil
}
