package pulsar

import (
	"crypto/tls"
	"fmt"
)

// tlsAuth authenticates with a client certificate (mTLS); the broker takes
// the role from it, so CONNECT carries no data.
type tlsAuth struct {
	certFile, keyFile string
	supply            func() (*tls.Certificate, error)
}

func (tlsAuth) Name() string          { return "tls" }
func (tlsAuth) Data() ([]byte, error) { return nil, nil }

// tlsCertificate loads the certificate anew (so rotated files or a
// supplier's new certificate are used at the next handshake).
func (a tlsAuth) tlsCertificate() (*tls.Certificate, error) {
	if a.supply != nil {
		c, err := a.supply()
		if err != nil {
			return nil, fmt.Errorf("%w: tls certificate supplier: %w", ErrAuthenticationData, err)
		}
		if c == nil {
			return nil, fmt.Errorf("%w: tls certificate supplier returned none", ErrAuthenticationData)
		}
		return c, nil
	}
	return loadKeyPair(a.certFile, a.keyFile)
}

// init loads the certificate once, as the official client's Init, so that
// NewClient reports a bad file rather than the first connect.
func (a tlsAuth) init() error {
	_, err := a.tlsCertificate()
	return err
}

// NewAuthenticationTLS authenticates with the client certificate and key in
// two PEM files, read at every TLS handshake (pulsar+ssl:// and https://
// only: a plain connection carries no certificate). NewClient fails when
// they cannot be read or do not match.
func NewAuthenticationTLS(certificatePath string, privateKeyPath string) Authentication {
	return tlsAuth{certFile: certificatePath, keyFile: privateKeyPath}
}

// NewAuthenticationFromTLSCertSupplier authenticates with the client
// certificate the supplier returns, called at every TLS handshake (and once
// by NewClient, which fails with its error).
func NewAuthenticationFromTLSCertSupplier(tlsCertSupplier func() (*tls.Certificate, error)) Authentication {
	return tlsAuth{supply: tlsCertSupplier}
}

// loadKeyPair reads a certificate and its key, each of at most
// maxCredentialFile bytes.
func loadKeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("%w: tls: a certificate file and a key file are both required", ErrAuthenticationParams)
	}
	certPEM, err := readFileLimited(certFile, maxCredentialFile)
	if err != nil {
		return nil, fmt.Errorf("%w: tls certificate: %w", ErrAuthenticationData, err)
	}
	keyPEM, err := readFileLimited(keyFile, maxCredentialFile)
	if err != nil {
		return nil, fmt.Errorf("%w: tls key: %w", ErrAuthenticationData, err)
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%w: tls key pair %s, %s: %w", ErrAuthenticationData, certFile, keyFile, err)
	}
	return &c, nil
}
