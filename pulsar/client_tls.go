package pulsar

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"slices"

	"github.com/pulsargo/sdk/internal/limitedfile"
	"github.com/pulsargo/sdk/pulsar/auth"
)

// maxTrustFile bounds the CA file read (system bundles are a few hundred
// KiB).
const maxTrustFile = 16 << 20

// initAuth checks an authentication method's configuration, as the
// official client's Provider.Init does in NewClient.
func initAuth(a Authentication) error {
	if a == nil {
		return nil
	}
	if err := a.Init(); err != nil {
		return fmt.Errorf("authentication %q: %w", a.Name(), err)
	}
	return nil
}

// tlsConfig builds the client's TLS configuration from the options, for
// the connections to brokers and the HTTP lookups. The server name is left
// empty: each connection sets it to the host it dials when the host name
// is checked.
func tlsConfig(opts ClientOptions) (*tls.Config, error) {
	if opts.TLSConfig != nil {
		return opts.TLSConfig, nil
	}
	if err := checkTLSVersions(opts.TLSMinVersion, opts.TLSMaxVersion); err != nil {
		return nil, err
	}
	if err := checkCipherSuites(opts.TLSCipherSuites); err != nil {
		return nil, err
	}
	minVersion := opts.TLSMinVersion
	if minVersion == 0 {
		minVersion = tls.VersionTLS12 // Go's default for clients
	}
	cfg := &tls.Config{ //nolint:gosec // InsecureSkipVerify when the user asked for it
		MinVersion:         minVersion,
		MaxVersion:         opts.TLSMaxVersion,
		CipherSuites:       slices.Clone(opts.TLSCipherSuites),
		InsecureSkipVerify: opts.TLSAllowInsecureConnection,
	}
	if opts.TLSTrustCertsFilePath != "" {
		pem, err := limitedfile.Read(opts.TLSTrustCertsFilePath, maxTrustFile)
		if err != nil {
			return nil, fmt.Errorf("%w: trust certs: %w", ErrInvalidOptions, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: no certificates in %s", ErrInvalidOptions, opts.TLSTrustCertsFilePath)
		}
		cfg.RootCAs = pool
	}
	if !opts.TLSValidateHostname && !opts.TLSAllowInsecureConnection {
		// Verify the chain but not the name, as the official client does
		// unless TLSValidateHostname is set.
		cfg.InsecureSkipVerify = true //nolint:gosec // chain verified below
		cfg.VerifyConnection = verifyChainOnly(cfg.RootCAs)
	}
	cert, err := clientCertificate(opts)
	if err != nil {
		return nil, err
	}
	if cert != nil {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert() }
	}
	return cfg, nil
}

// clientCertificate returns what presents the client certificate: the
// Authentication's GetTLSCertificate (called at each handshake), or when it
// gives none the options' files (loaded now); nil for none.
func clientCertificate(opts ClientOptions) (func() (*tls.Certificate, error), error) {
	var files *tls.Certificate
	switch {
	case opts.TLSCertificateFile == "" && opts.TLSKeyFilePath == "":
	case opts.TLSCertificateFile == "" || opts.TLSKeyFilePath == "":
		return nil, invalidOption(InvalidConfiguration, "TLSCertificateFile and TLSKeyFilePath must be set together")
	default:
		c, err := auth.NewAuthenticationTLS(opts.TLSCertificateFile, opts.TLSKeyFilePath).GetTLSCertificate()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
		files = c
	}
	a := opts.Authentication
	if a == nil {
		if files == nil {
			return nil, nil
		}
		return func() (*tls.Certificate, error) { return files, nil }, nil
	}
	return func() (*tls.Certificate, error) {
		c, err := a.GetTLSCertificate()
		switch {
		case err != nil:
			return nil, err
		case c != nil:
			return c, nil
		case files != nil:
			return files, nil
		}
		return &tls.Certificate{}, nil // none: the handshake goes on without one
	}, nil
}

// checkTLSVersions refuses versions that are not TLS 1.0 to 1.3, or a
// minimum above the maximum.
func checkTLSVersions(lo, hi uint16) error {
	for _, v := range []uint16{lo, hi} {
		if v != 0 && (v < tls.VersionTLS10 || v > tls.VersionTLS13) {
			return invalidOption(InvalidConfiguration, fmt.Sprintf("TLS version 0x%04x is not TLS 1.0 to 1.3", v))
		}
	}
	if lo != 0 && hi != 0 && lo > hi {
		return invalidOption(InvalidConfiguration, "TLSMinVersion is above TLSMaxVersion")
	}
	return nil
}

// checkCipherSuites refuses ids the tls package does not know.
func checkCipherSuites(ids []uint16) error {
	known := map[uint16]bool{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		known[s.ID] = true
	}
	for _, id := range ids {
		if !known[id] {
			return invalidOption(InvalidConfiguration, fmt.Sprintf("unknown TLS cipher suite 0x%04x", id))
		}
	}
	return nil
}

// verifyChainOnly checks the peer's chain against roots (nil: the system
// pool) without checking the host name.
func verifyChainOnly(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return fmt.Errorf("pulsar: broker sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
}
