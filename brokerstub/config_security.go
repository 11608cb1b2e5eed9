package brokerstub

import (
	"net"
	"strings"
	"time"
)

// tls reads the TLS keys: the TLS ports (brokerServicePortTls,
// webServicePortTls) are served when set, with the identity of the
// tls*FilePath files, which must then load.
func (p *configParser) tls(o *Options, bind string) {
	files := TLSFiles{
		CertFile:                 p.str("tlsCertificateFilePath", ""),
		KeyFile:                  p.str("tlsKeyFilePath", ""),
		TrustCertsFile:           p.str("tlsTrustCertsFilePath", ""),
		RequireTrustedClientCert: p.bool("tlsRequireTrustedClientCertOnConnect", false),
		AllowInsecureConnection:  p.bool("tlsAllowInsecureConnection", false),
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
	if files.CertFile == "" || files.KeyFile == "" {
		p.fail("brokerServicePortTls", o.TLSAddr+o.WebServiceTLSAddr, "a TLS port needs tlsCertificateFilePath and tlsKeyFilePath")
		return
	}
	cfg, err := files.Config()
	if err != nil {
		p.failErr("tlsCertificateFilePath", files.CertFile, err)
		return
	}
	o.TLS = cfg
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
