package brokerstub

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrTLSUnsupported is wrapped by the refusal of a TLS protocol or cipher
// suite, named as Java names them (Pulsar's tlsProtocols, tlsCiphers,
// webServiceTlsProtocols, webServiceTlsCiphers), that Go's crypto/tls
// cannot offer as asked.
var ErrTLSUnsupported = errors.New("brokerstub: TLS setting Go's crypto/tls cannot honour")

// javaTLSVersions maps the protocol names of Java's SSLContext to Go's.
var javaTLSVersions = map[string]uint16{
	"TLSv1":   tls.VersionTLS10,
	"TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.3": tls.VersionTLS13,
}

// tls13Suites are the TLS 1.3 cipher suites, which Go always offers all
// of (they cannot be chosen in crypto/tls).
var tls13Suites = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// applyJavaTLS restricts cfg to protocols and ciphers, given by their
// Java (IANA) names as Pulsar's config takes them; empty lists keep Go's
// defaults (as Pulsar keeps the JVM's). What Go cannot do is refused,
// naming it: SSLv3 and SSLv2Hello, a set of versions with a gap (Go takes a
// range), a cipher suite Go does not implement (DHE, CCM, ARIA...), and a
// strict subset of the TLS 1.3 suites. Listing ciphers with none of the
// TLS 1.3 suites turns TLS 1.3 off, as it does in Java. keys names the
// two config keys for the errors.
func applyJavaTLS(cfg *tls.Config, protocols, ciphers []string, keys [2]string) error {
	if len(protocols) > 0 {
		var vs []uint16
		for _, p := range protocols {
			v, ok := javaTLSVersions[p]
			if !ok {
				return fmt.Errorf("%w: %s: protocol %q: Go offers TLSv1, TLSv1.1, TLSv1.2 and TLSv1.3", ErrTLSUnsupported, keys[0], p)
			}
			vs = append(vs, v)
		}
		slices.Sort(vs)
		vs = slices.Compact(vs)
		for i := 1; i < len(vs); i++ {
			if vs[i] != vs[i-1]+1 {
				return fmt.Errorf("%w: %s=%s: Go offers a range of versions, without gaps: list every version between the lowest and the highest",
					ErrTLSUnsupported, keys[0], strings.Join(protocols, ","))
			}
		}
		cfg.MinVersion, cfg.MaxVersion = vs[0], vs[len(vs)-1]
	}
	if len(ciphers) == 0 {
		return nil
	}
	byName := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[s.Name] = s.ID
	}
	var ids []uint16
	var n13 int
	for _, c := range ciphers {
		name := c
		if strings.HasPrefix(name, "SSL_") { // Java's old aliases
			name = "TLS_" + strings.TrimPrefix(name, "SSL_")
		}
		if slices.Contains(tls13Suites, name) {
			n13++
			continue
		}
		id, ok := byName[name]
		if !ok {
			return fmt.Errorf("%w: %s: cipher suite %q is not implemented by Go's crypto/tls (it has no DHE, CCM, ARIA or CAMELLIA suites); use ECDHE suites such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
				ErrTLSUnsupported, keys[1], c)
		}
		ids = append(ids, id)
	}
	if n13 != 0 && n13 != len(tls13Suites) {
		return fmt.Errorf("%w: %s lists some of the TLS 1.3 suites: Go always offers all of %s; list all three, or none (TLS 1.3 off)",
			ErrTLSUnsupported, keys[1], strings.Join(tls13Suites, ", "))
	}
	if n13 == 0 {
		if cfg.MinVersion == tls.VersionTLS13 {
			return fmt.Errorf("%w: %s lists no TLS 1.3 suite, and %s allows only TLSv1.3: no connection could be made",
				ErrTLSUnsupported, keys[1], keys[0])
		}
		cfg.MaxVersion = tls.VersionTLS12 // Java negotiates no TLS 1.3 without one of its suites
	}
	if len(ids) == 0 && n13 != 0 {
		// Only TLS 1.3 suites listed: earlier versions have none.
		cfg.MinVersion = tls.VersionTLS13
	}
	cfg.CipherSuites = ids
	return nil
}
