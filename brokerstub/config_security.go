package brokerstub

import "net"

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
