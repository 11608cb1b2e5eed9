package auth

import (
	"crypto/tls"
	"fmt"
	"net/http"

	"github.com/pulsargo/sdk/internal/limitedfile"
)

// NewAuthenticationTLS authenticates with the client certificate and key in
// two PEM files, read at every TLS handshake; Init fails when they cannot
// be read or do not match.
func NewAuthenticationTLS(certificatePath string, privateKeyPath string) Provider {
	return newTLS(certificatePath, privateKeyPath)
}

// NewAuthenticationTLSWithParams is NewAuthenticationTLS with params
// "tlsCertFile" and "tlsKeyFile".
func NewAuthenticationTLSWithParams(params map[string]string) Provider {
	return newTLS(params["tlsCertFile"], params["tlsKeyFile"])
}

// NewAuthenticationFromTLSCertSupplier authenticates with the client
// certificate the supplier returns, called at every TLS handshake (and
// once by Init, which fails with its error).
func NewAuthenticationFromTLSCertSupplier(tlsCertSupplier func() (*tls.Certificate, error)) Provider {
	return newTLSFromSupplier(tlsCertSupplier)
}

// tlsProvider authenticates with a client certificate (mTLS); the broker
// takes the role from it, so CONNECT carries no data.
type tlsProvider struct {
	certFile, keyFile string
	supply            func() (*tls.Certificate, error)
	transport
}

func (*tlsProvider) Name() string             { return "tls" }
func (*tlsProvider) GetData() ([]byte, error) { return nil, nil }
func (*tlsProvider) Close() error             { return nil }

// GetTLSCertificate loads the certificate anew (so rotated files or a
// supplier's new certificate are used at the next handshake).
func (a *tlsProvider) GetTLSCertificate() (*tls.Certificate, error) {
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

// Init loads the certificate once, as the official client's Init, so that
// NewClient reports a bad file rather than the first connect.
func (a *tlsProvider) Init() error {
	_, err := a.GetTLSCertificate()
	return err
}

// RoundTrip sends req over the transport, which presents the certificate
// (WithTransport configured it).
func (a *tlsProvider) RoundTrip(req *http.Request) (*http.Response, error) {
	return a.base().RoundTrip(req)
}

// WithTransport sets the transport and makes it present the provider's
// certificate at every TLS handshake. It must be an *http.Transport (an
// error wrapping ErrAuthenticationParams otherwise), and the certificate
// must load (its error otherwise), as the official client's.
func (a *tlsProvider) WithTransport(t http.RoundTripper) error {
	ht, ok := t.(*http.Transport)
	if !ok {
		return fmt.Errorf("%w: tls: the transport is a %T, not an *http.Transport", ErrAuthenticationParams, t)
	}
	if err := a.Init(); err != nil {
		return err
	}
	if ht.TLSClientConfig == nil {
		ht.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	ht.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return a.GetTLSCertificate()
	}
	return a.transport.WithTransport(ht)
}

// newTLS authenticates with the client certificate and key in two PEM
// files, read at every TLS handshake (pulsar+ssl:// and https:// only: a
// plain connection carries no certificate). Init fails when they cannot be
// read or do not match.
func newTLS(certificatePath string, privateKeyPath string) Provider {
	return &tlsProvider{certFile: certificatePath, keyFile: privateKeyPath}
}

// newTLSFromSupplier authenticates with the client certificate the
// supplier returns, called at every TLS handshake (and once by Init, which
// fails with its error).
func newTLSFromSupplier(supplier func() (*tls.Certificate, error)) Provider {
	return &tlsProvider{supply: supplier}
}

// loadKeyPair reads a certificate and its key, each of at most
// MaxCredentialFile bytes.
func loadKeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("%w: tls: a certificate file and a key file are both required", ErrAuthenticationParams)
	}
	certPEM, err := limitedfile.Read(certFile, MaxCredentialFile)
	if err != nil {
		return nil, fmt.Errorf("%w: tls certificate: %w", ErrAuthenticationData, err)
	}
	keyPEM, err := limitedfile.Read(keyFile, MaxCredentialFile)
	if err != nil {
		return nil, fmt.Errorf("%w: tls key: %w", ErrAuthenticationData, err)
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%w: tls key pair %s, %s: %w", ErrAuthenticationData, certFile, keyFile, err)
	}
	return &c, nil
}
