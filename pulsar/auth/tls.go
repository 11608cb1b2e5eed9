package auth

import (
	"crypto/tls"

	"github.com/pulsargo/sdk/internal/authn"
)

// NewAuthenticationTLS authenticates with the client certificate and key in
// two PEM files, read at every TLS handshake; Init fails when they cannot
// be read or do not match.
func NewAuthenticationTLS(certificatePath string, privateKeyPath string) Provider {
	return authn.NewTLS(certificatePath, privateKeyPath)
}

// NewAuthenticationTLSWithParams is NewAuthenticationTLS with params
// "tlsCertFile" and "tlsKeyFile".
func NewAuthenticationTLSWithParams(params map[string]string) Provider {
	return authn.NewTLS(params["tlsCertFile"], params["tlsKeyFile"])
}

// NewAuthenticationFromTLSCertSupplier authenticates with the client
// certificate the supplier returns, called at every TLS handshake (and
// once by Init, which fails with its error).
func NewAuthenticationFromTLSCertSupplier(tlsCertSupplier func() (*tls.Certificate, error)) Provider {
	return authn.NewTLSFromSupplier(tlsCertSupplier)
}
