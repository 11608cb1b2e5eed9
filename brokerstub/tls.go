package brokerstub

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
)

// TLSFiles name the PEM files of a broker's TLS identity, as Pulsar's
// tlsCertificateFilePath, tlsKeyFilePath and tlsTrustCertsFilePath.
type TLSFiles struct {
	// CertFile and KeyFile are the broker's certificate chain and key.
	CertFile, KeyFile string
	// TrustCertsFile, when set, holds the CAs client certificates are
	// verified against when a client presents one. Default "": client
	// certificates are not asked for.
	TrustCertsFile string
	// RequireTrustedClientCert refuses a connection without a client
	// certificate signed by TrustCertsFile (Pulsar's
	// tlsRequireTrustedClientCertOnConnect). Default false.
	RequireTrustedClientCert bool
	// AllowInsecureConnection accepts client certificates that do not
	// verify (Pulsar's tlsAllowInsecureConnection). Default false.
	AllowInsecureConnection bool
}

// errTLSConfig is wrapped by every error of TLSFiles.Config.
var errTLSConfig = errors.New("brokerstub: tls")

// Config reads the files into a server tls.Config (TLS 1.2 or later).
func (f TLSFiles) Config() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: certificate %s, key %s: %w", errTLSConfig, f.CertFile, f.KeyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.TrustCertsFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(f.TrustCertsFile)
	if err != nil {
		return nil, fmt.Errorf("%w: trust certs: %w", errTLSConfig, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: trust certs %s: no PEM certificate", errTLSConfig, f.TrustCertsFile)
	}
	setClientAuth(cfg, pool, f.RequireTrustedClientCert, f.AllowInsecureConnection)
	return cfg, nil
}

// setClientAuth asks for client certificates verified against pool:
// required (tlsRequireTrustedClientCertOnConnect), accepted unverified
// (tlsAllowInsecureConnection), or verified when given.
func setClientAuth(cfg *tls.Config, pool *x509.CertPool, require, insecure bool) {
	cfg.ClientCAs = pool
	switch {
	case require:
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	case insecure:
		cfg.ClientAuth = tls.RequestClientCert
	default:
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
}

// tlsSplit reports whether the broker serves TLS on ports of its own beside
// the plain ones (Options.TLSAddr or Options.WebServiceTLSAddr set), rather
// than on its one binary port.
func (o Options) tlsSplit() bool {
	return o.TLS != nil && (o.TLSAddr != "" || o.WebServiceTLSAddr != "")
}

// listenTLS opens the TLS binary listener on addr.
func listenTLS(addr string, cfg *tls.Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("brokerstub: listen tls: %w", err)
	}
	return tls.NewListener(ln, cfg), nil
}

// TLSURL returns the broker's TLS service URL, "pulsar+ssl://host:port"
// (Pulsar's brokerServiceUrlTls), or "" when the broker serves no TLS.
func (b *Broker) TLSURL() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.tlsAddr != "":
		return "pulsar+ssl://" + b.advertise(b.tlsAddr)
	case b.opts.TLS != nil && !b.opts.tlsSplit() && b.addr != "":
		return "pulsar+ssl://" + b.advertise(b.addr)
	}
	return ""
}

// WebServiceTLSURL returns the URL of the admin REST API over TLS,
// "https://host:port" (Pulsar's webServiceUrlTls), or "" when
// Options.WebServiceTLSAddr is not set.
func (b *Broker) WebServiceTLSURL() string {
	if b.api.Admin == nil || b.api.Admin.TlsAddr == "" {
		return ""
	}
	return "https://" + b.advertise(b.api.Admin.TlsAddr)
}
