package auth

import "github.com/pulsargo/sdk/internal/authn"

// NewAuthenticationToken authenticates with a fixed JWT token, sent in
// CONNECT and as "Authorization: Bearer" over HTTP. An empty token makes
// Init fail.
func NewAuthenticationToken(token string) Provider { return authn.NewToken(token) }

// NewAuthenticationTokenFromSupplier authenticates with the token the
// supplier returns, called at every connect, challenge and HTTP request
// (and once by Init, which fails with its error).
func NewAuthenticationTokenFromSupplier(tokenSupplier func() (string, error)) Provider {
	return authn.NewTokenFromSupplier(tokenSupplier)
}

// NewAuthenticationTokenFromFile authenticates with the token in a file
// (trimmed of surrounding spaces and newlines), read at every use so a
// rotated token is picked up; Init fails when it cannot be read, is empty
// or is larger than 1 MiB.
func NewAuthenticationTokenFromFile(tokenFilePath string) Provider {
	return authn.NewTokenFromFile(tokenFilePath)
}

// NewAuthenticationTokenWithParams is the token method of params "token"
// (the token) or "file" (a path or file:// URL); with neither it returns an
// error wrapping ErrAuthenticationParams.
func NewAuthenticationTokenWithParams(params map[string]string) (Provider, error) {
	return authn.TokenWithParams(params)
}
