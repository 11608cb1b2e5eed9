package pulsar

import (
	"crypto/tls"

	"github.com/pulsargo/sdk/pulsar/auth"
)

// Authentication supplies the credentials sent when connecting: an
// auth.Provider. The constructors of this package and of package
// pulsar/auth return the same providers (token, TLS, basic, OAuth2, or any
// of them by name through NewAuthentication), and an application's own
// auth.Provider is one too. NewClient calls its Init. Default: none (nil,
// as auth.NewAuthDisabled).
type Authentication = auth.Provider

// The errors of the authentication methods. NewClient, and the operations
// that connect, return errors that wrap them (errors.Is); a broker or web
// service that refuses the credentials answers with a *ServerError whose
// Code is "AuthenticationError" (or "AuthorizationError") instead.
var (
	// ErrAuthenticationData: the credentials could not be obtained (an
	// unreadable token or key file, an empty token, an OAuth2 issuer that
	// fails or answers garbage). Result ErrorGettingAuthenticationData.
	ErrAuthenticationData = engineError(auth.ErrAuthenticationData)
	// ErrAuthenticationParams: the parameters of an authentication method
	// are malformed or missing, or name no method (NewAuthentication); a
	// case of ErrInvalidOptions. Result InvalidConfiguration.
	ErrAuthenticationParams = engineError(auth.ErrAuthenticationParams)
	// ErrAthenzNotSupported: Athenz authentication is not implemented (it
	// needs Athenz's ZTS client, which has no well-kept Go library outside
	// the Athenz project); a case of ErrInvalidOptions. Result
	// InvalidConfiguration.
	ErrAthenzNotSupported = engineError(auth.ErrAthenzNotSupported)
)

// OAuth2Error is an OAuth2 issuer's refusal (RFC 6749 section 5.2) or an
// answer that is not one: the well-known document or the token endpoint
// answered a non-2xx status, or a body that is not the JSON expected or is
// too large. It wraps ErrAuthenticationData.
type OAuth2Error = auth.OAuth2Error

// NewAuthentication returns the authentication method named name, with
// params as a JSON object of strings or "key:value" pairs separated by
// commas; see auth.NewProvider for the names and their params. Malformed
// params, a missing parameter or an unknown name return an error wrapping
// ErrAuthenticationParams.
func NewAuthentication(name string, params string) (Authentication, error) {
	return auth.NewProvider(name, params)
}

// NewAuthenticationToken authenticates with a fixed JWT token. An empty
// token makes NewClient fail, as the official client's.
func NewAuthenticationToken(token string) Authentication { return auth.NewAuthenticationToken(token) }

// NewAuthenticationTokenFromSupplier authenticates with a token obtained
// anew at every connect and challenge (NewClient calls it once to check it).
func NewAuthenticationTokenFromSupplier(tokenSupplier func() (string, error)) Authentication {
	return auth.NewAuthenticationTokenFromSupplier(tokenSupplier)
}

// NewAuthenticationTokenFromFile authenticates with the token in a file
// (spaces and newlines around it trimmed), read at every connect so a
// rotated token is picked up. NewClient fails when the file cannot be read
// or is empty; a file larger than 1 MiB is refused.
func NewAuthenticationTokenFromFile(tokenFilePath string) Authentication {
	return auth.NewAuthenticationTokenFromFile(tokenFilePath)
}

// NewAuthenticationTLS authenticates with the client certificate and key in
// two PEM files, read at every TLS handshake (pulsar+ssl:// and https://
// only: a plain connection carries no certificate). NewClient fails when
// they cannot be read or do not match.
func NewAuthenticationTLS(certificatePath string, privateKeyPath string) Authentication {
	return auth.NewAuthenticationTLS(certificatePath, privateKeyPath)
}

// NewAuthenticationFromTLSCertSupplier authenticates with the client
// certificate the supplier returns, called at every TLS handshake (and once
// by NewClient, which fails with its error).
func NewAuthenticationFromTLSCertSupplier(tlsCertSupplier func() (*tls.Certificate, error)) Authentication {
	return auth.NewAuthenticationFromTLSCertSupplier(tlsCertSupplier)
}

// NewAuthenticationBasic authenticates with a user name and password
// (Pulsar's AuthenticationProviderBasic checks them against its htpasswd
// file). Both are required: an empty one is an error wrapping
// ErrAuthenticationParams.
func NewAuthenticationBasic(username, password string) (Authentication, error) {
	return auth.NewAuthenticationBasic(username, password)
}

// NewAuthenticationOAuth2 authenticates with an OAuth2 access token of the
// client credentials flow, as the official client's; see
// auth.NewAuthenticationOAuth2WithParams for the params and when the token
// is fetched. A type other than client_credentials makes NewClient fail
// with an error wrapping ErrAuthenticationParams (the official client then
// silently authenticates with nothing). The broker receives the method
// "token".
func NewAuthenticationOAuth2(authParams map[string]string) Authentication {
	return auth.NewAuthenticationOAuth2(authParams)
}

// NewAuthenticationAthenz exists so that code written for the official
// client compiles; Athenz is not implemented, and NewClient fails with
// ErrAthenzNotSupported whatever the params.
func NewAuthenticationAthenz(authParams map[string]string) Authentication {
	return auth.NewAuthenticationAthenz("", "", "", "", "", "", "", "", "", "", "")
}
