package auth

import "github.com/pulsargo/sdk/internal/authn"

// NewAuthenticationBasic authenticates with a user name and password, sent
// as "user:password" in CONNECT and as "Authorization: Basic" over HTTP.
// Both are required: an empty one is an error wrapping
// ErrAuthenticationParams.
func NewAuthenticationBasic(username, password string) (Provider, error) {
	return authn.NewBasic(username, password)
}

// NewAuthenticationBasicWithParams is NewAuthenticationBasic with params
// "username" (or Java's "userId") and "password".
func NewAuthenticationBasicWithParams(params map[string]string) (Provider, error) {
	return authn.BasicWithParams(params)
}
