package pulsar

import "fmt"

// basicAuth is HTTP-basic style authentication: CONNECT carries
// "user:password", HTTP requests an "Authorization: Basic" header.
type basicAuth struct{ data []byte }

func (basicAuth) Name() string { return "basic" }

func (a basicAuth) Data() ([]byte, error) { return a.data, nil }

// NewAuthenticationBasic authenticates with a user name and password
// (Pulsar's AuthenticationProviderBasic checks them against its htpasswd
// file). Both are required: an empty one is an error wrapping
// ErrAuthenticationParams.
func NewAuthenticationBasic(username, password string) (Authentication, error) {
	if username == "" {
		return nil, fmt.Errorf("%w: basic: username cannot be empty", ErrAuthenticationParams)
	}
	if password == "" {
		return nil, fmt.Errorf("%w: basic: password cannot be empty", ErrAuthenticationParams)
	}
	return basicAuth{data: []byte(username + ":" + password)}, nil
}
