package pulsar

import (
	"fmt"
	"os"
	"strings"
)

// Authentication supplies credentials sent when connecting.
type Authentication interface {
	// Name is the authentication method name sent to the broker ("token").
	Name() string
	// Data returns the credentials; it is called on every (re)connect.
	Data() ([]byte, error)
}

type tokenAuth struct{ supply func() (string, error) }

func (tokenAuth) Name() string { return "token" }

func (a tokenAuth) Data() ([]byte, error) {
	t, err := a.supply()
	if err != nil {
		return nil, fmt.Errorf("pulsar: token: %w", err)
	}
	return []byte(t), nil
}

// NewAuthenticationToken authenticates with a fixed JWT token.
func NewAuthenticationToken(token string) Authentication {
	return tokenAuth{supply: func() (string, error) { return token, nil }}
}

// NewAuthenticationTokenFromSupplier authenticates with a token obtained
// anew at every connect.
func NewAuthenticationTokenFromSupplier(supplier func() (string, error)) Authentication {
	return tokenAuth{supply: supplier}
}

// NewAuthenticationTokenFromFile authenticates with the token in a file,
// read at every connect (so a rotated token is picked up).
func NewAuthenticationTokenFromFile(path string) Authentication {
	return tokenAuth{supply: func() (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(b)), nil
	}}
}
