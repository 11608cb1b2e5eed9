package auth

// NewTLS returns Pulsar's AuthenticationProviderTls: the role is
// the common name of the client certificate of the TLS connection (method
// "tls"). Verifying the certificate is the TLS listener's (Options.TLS's
// ClientCAs).
func NewTLS() Provider { return tlsProvider{} }

type tlsProvider struct{}

func (tlsProvider) MethodName() string { return "tls" }

func (tlsProvider) Authenticate(d Credentials) (Identity, error) {
	if len(d.PeerCertificates) == 0 {
		return Identity{}, Errorf("no client certificate")
	}
	cn := d.PeerCertificates[0].Subject.CommonName
	if cn == "" {
		return Identity{}, Errorf("client certificate without a common name")
	}
	return Identity{Role: cn}, nil
}
