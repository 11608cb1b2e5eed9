package brokerstub

import (
	"crypto/tls"
	"net"
	"strings"
	"time"
)

// tls reads the TLS keys: the TLS ports (brokerServicePortTls,
// webServicePortTls) are served when set, with the identity of the
// tls*FilePath files, or of the Java KeyStores with
// tlsEnabledWithKeyStore=true (tls_keystore.go), which must then load; and
// with the protocols and ciphers of tlsProtocols/tlsCiphers on the binary
// port, webServiceTlsProtocols/webServiceTlsCiphers on HTTPS
// (tls_versions.go), refused when Go cannot offer them.
func (p *configParser) tls(o *Options, bind string) {
	files := TLSFiles{
		CertFile:                 p.str("tlsCertificateFilePath", ""),
		KeyFile:                  p.str("tlsKeyFilePath", ""),
		TrustCertsFile:           p.str("tlsTrustCertsFilePath", ""),
		RequireTrustedClientCert: p.bool("tlsRequireTrustedClientCertOnConnect", false),
		AllowInsecureConnection:  p.bool("tlsAllowInsecureConnection", false),
	}
	withKeyStore := p.bool("tlsEnabledWithKeyStore", false)
	ks := TLSKeyStore{
		KeyStoreType:             p.keyStoreType("tlsKeyStoreType"),
		KeyStore:                 p.str("tlsKeyStore", ""),
		KeyStorePassword:         p.str("tlsKeyStorePassword", ""),
		TrustStoreType:           p.keyStoreType("tlsTrustStoreType"),
		TrustStore:               p.str("tlsTrustStore", ""),
		TrustStorePassword:       p.str("tlsTrustStorePassword", ""),
		RequireTrustedClientCert: files.RequireTrustedClientCert,
		AllowInsecureConnection:  files.AllowInsecureConnection,
	}
	versions := [2][2]string{{"tlsProtocols", "tlsCiphers"}, {"webServiceTlsProtocols", "webServiceTlsCiphers"}}
	var lists [2][2][]string
	for i, keys := range versions {
		lists[i] = [2][]string{splitList(p.str(keys[0], "")), splitList(p.str(keys[1], ""))}
		// Checked whether or not a TLS port is set, so that a typo is
		// found before TLS is switched on.
		if err := applyJavaTLS(&tls.Config{}, lists[i][0], lists[i][1], keys); err != nil && p.err == nil {
			p.err = err
		}
	}
	if v, ok := p.take("brokerServicePortTls"); ok {
		p.port("brokerServicePortTls", v)
		o.TLSAddr = net.JoinHostPort(bind, v)
	}
	if v, ok := p.take("webServicePortTls"); ok {
		p.port("webServicePortTls", v)
		o.WebServiceTLSAddr = net.JoinHostPort(bind, v)
	}
	if o.TLSAddr == "" && o.WebServiceTLSAddr == "" {
		return
	}
	var cfg *tls.Config
	var err error
	switch {
	case withKeyStore:
		if ks.KeyStore == "" {
			p.fail("tlsEnabledWithKeyStore", "true", "a TLS port with tlsEnabledWithKeyStore needs tlsKeyStore")
			return
		}
		if cfg, err = ks.Config(); err != nil {
			p.failErr("tlsKeyStore", ks.KeyStore, err)
			return
		}
	case files.CertFile == "" || files.KeyFile == "":
		p.fail("brokerServicePortTls", o.TLSAddr+o.WebServiceTLSAddr, "a TLS port needs tlsCertificateFilePath and tlsKeyFilePath (or tlsEnabledWithKeyStore=true and tlsKeyStore)")
		return
	default:
		if cfg, err = files.Config(); err != nil {
			p.failErr("tlsCertificateFilePath", files.CertFile, err)
			return
		}
	}
	web := cfg.Clone()
	_ = applyJavaTLS(cfg, lists[0][0], lists[0][1], versions[0]) // checked above
	_ = applyJavaTLS(web, lists[1][0], lists[1][1], versions[1])
	o.TLS, o.WebServiceTLS = cfg, web
}

// keyStoreType reads a KeyStore type key: PKCS12 or JKS (any case, as
// Java's KeyStore.getInstance); another is refused.
func (p *configParser) keyStoreType(k string) string {
	v := p.str(k, "JKS")
	switch strings.ToUpper(v) {
	case "JKS", "PKCS12":
		return strings.ToUpper(v)
	}
	p.fail(k, v, "brokerstub reads PKCS12 and JKS key stores")
	return v
}

// providerClasses maps Pulsar's authentication provider classes to the
// stub's providers.
var providerClasses = map[string]string{
	"org.apache.pulsar.broker.authentication.AuthenticationProviderToken": "token",
	"org.apache.pulsar.broker.authentication.AuthenticationProviderTls":   "tls",
	"org.apache.pulsar.broker.authentication.AuthenticationProviderBasic": "basic",
}

// auth reads the authentication and authorization keys. A provider class
// the stub does not implement, or one without its keys, is an error.
func (p *configParser) auth(o *Options) {
	o.AuthenticationEnabled = p.bool("authenticationEnabled", false)
	o.AuthenticationRefreshCheck = time.Duration(p.int("authenticationRefreshCheckSeconds", 0, 1)) * time.Second
	o.AnonymousUserRole = p.str("anonymousUserRole", "")
	o.AuthorizationEnabled = p.bool("authorizationEnabled", false)
	o.SuperUserRoles = splitList(p.str("superUserRoles", ""))
	tok := TokenOptions{
		Claim:         p.str("tokenAuthClaim", ""),
		Audience:      p.str("tokenAudience", ""),
		AudienceClaim: p.str("tokenAudienceClaim", ""),
	}
	secret, public := p.str("tokenSecretKey", ""), p.str("tokenPublicKey", "")
	basicConf := p.str("basicAuthConf", "")
	for _, class := range splitList(p.str("authenticationProviders", "")) {
		switch providerClasses[class] {
		case "token":
			var err error
			switch {
			case secret != "":
				tok.SecretKey, err = ReadTokenKey(secret)
			case public != "":
				var der []byte
				if der, err = ReadTokenKey(public); err == nil {
					tok.PublicKey, err = ParseTokenPublicKey(der)
				}
			default:
				p.fail("authenticationProviders", class, "needs tokenSecretKey or tokenPublicKey")
				continue
			}
			if err != nil {
				p.failErr("tokenSecretKey/tokenPublicKey", secret+public, err)
				continue
			}
			prov, err := NewTokenProvider(tok)
			if err != nil {
				p.failErr("authenticationProviders", class, err)
				continue
			}
			o.AuthenticationProviders = append(o.AuthenticationProviders, prov)
		case "tls":
			o.AuthenticationProviders = append(o.AuthenticationProviders, NewTLSProvider())
		case "basic":
			if basicConf == "" {
				p.fail("authenticationProviders", class, "needs basicAuthConf")
				continue
			}
			data, err := ReadBasicAuthConf(basicConf)
			if err == nil {
				var prov AuthenticationProvider
				if prov, err = NewBasicProvider(data); err == nil {
					o.AuthenticationProviders = append(o.AuthenticationProviders, prov)
					continue
				}
			}
			p.failErr("basicAuthConf", basicConf, err)
		default:
			p.fail("authenticationProviders", class, "brokerstub implements only AuthenticationProviderToken, AuthenticationProviderTls and AuthenticationProviderBasic")
		}
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// proxyRoles reads proxyRoles, authenticateOriginalAuthData and
// authorizationAllowWildcardsMatching.
func (p *configParser) proxyRoles(o *Options) {
	o.ProxyRoles = splitList(p.str("proxyRoles", ""))
	o.AuthenticateOriginalAuthData = p.bool("authenticateOriginalAuthData", false)
	o.AuthorizationAllowWildcardsMatching = p.bool("authorizationAllowWildcardsMatching", false)
}
