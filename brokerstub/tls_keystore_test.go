package brokerstub

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulsargo/sdk/brokerstub/internal/keystore"
)

// keystorePath is a keystore made by JDK 17's keytool
// (testdata/keystore/README.md), password "changeit".
func keystorePath(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "keystore", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// keystoreClientCert is the client identity of testdata/keystore/client.p12,
// which truststore.{p12,jks} trust.
func keystoreClientCert(t *testing.T) tls.Certificate {
	t.Helper()
	data, err := os.ReadFile(keystorePath(t, "client.p12"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := keystore.ReadPKCS12(data, "changeit")
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{st.Keys[0].Chain[0].Raw}, PrivateKey: st.Keys[0].Key}
}

func keystoreConf(t *testing.T, extra string) string {
	return "bindAddress=127.0.0.1\nbrokerServicePort=0\nwebServicePort=0\nbrokerServicePortTls=0\nwebServicePortTls=0\n" +
		"tlsEnabledWithKeyStore=true\n" + extra
}

// TestTLSFromKeytoolKeyStores serves TLS from keytool's stores, PKCS12 and
// JKS as key and trust store in both pairings, with client certificates
// required, the binary port at TLSv1.2 and HTTPS at TLSv1.3 only.
func TestTLSFromKeytoolKeyStores(t *testing.T) {
	for _, tc := range []struct{ ksType, ks, tsType, ts string }{
		{"PKCS12", "server.p12", "JKS", "truststore.jks"},
		{"JKS", "server.jks", "PKCS12", "truststore.p12"},
		{"jks", "server-ec.jks", "pkcs12", "truststore.p12"},
	} {
		t.Run(tc.ks, func(t *testing.T) {
			conf := keystoreConf(t, "tlsKeyStoreType="+tc.ksType+"\ntlsKeyStore="+keystorePath(t, tc.ks)+
				"\ntlsKeyStorePassword=changeit\ntlsTrustStoreType="+tc.tsType+"\ntlsTrustStore="+keystorePath(t, tc.ts)+
				"\ntlsTrustStorePassword=changeit\ntlsRequireTrustedClientCertOnConnect=true\n"+
				"tlsProtocols=TLSv1.2\nwebServiceTlsProtocols=TLSv1.3\n")
			cfg, err := ParseConfig(strings.NewReader(conf))
			if err != nil {
				t.Fatal(err)
			}
			b := RunT(t, cfg.Options)
			roots := x509.NewCertPool()
			roots.AddCert(cfg.Options.TLS.Certificates[0].Leaf)
			client := &tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: []tls.Certificate{keystoreClientCert(t)}}

			nc, err := tls.Dial("tcp", strings.TrimPrefix(b.TLSURL(), "pulsar+ssl://"), client)
			if err != nil {
				t.Fatalf("binary TLS port: %v", err)
			}
			if v := nc.ConnectionState().Version; v != tls.VersionTLS12 {
				t.Errorf("binary port negotiated %x, want TLS 1.2 (tlsProtocols=TLSv1.2)", v)
			}
			_ = nc.Close()
			if err := handshake(b, &tls.Config{RootCAs: roots, ServerName: "localhost"}); err == nil {
				t.Errorf("binary port accepted a client without a certificate (tlsRequireTrustedClientCertOnConnect)")
			}

			hc := &http.Client{Transport: &http.Transport{TLSClientConfig: client}}
			resp, err := hc.Get(b.WebServiceTLSURL() + "/admin/v2/clusters")
			if err != nil {
				t.Fatalf("HTTPS: %v", err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != 200 || resp.TLS.Version != tls.VersionTLS13 {
				t.Errorf("HTTPS: %d over %x, want 200 over TLS 1.3 (webServiceTlsProtocols=TLSv1.3)", resp.StatusCode, resp.TLS.Version)
			}
			old := client.Clone()
			old.MaxVersion = tls.VersionTLS12
			if _, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: old}}).Get(b.WebServiceTLSURL() + "/admin/v2/clusters"); err == nil {
				t.Errorf("HTTPS accepted TLS 1.2 with webServiceTlsProtocols=TLSv1.3")
			}
		})
	}
}

func TestTLSKeyStoreRefusals(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{"tlsKeyStoreType=PKCS12\ntlsKeyStore=" + keystorePath(t, "server.p12") + "\ntlsKeyStorePassword=nope\n", "wrong password"},
		{"tlsKeyStoreType=JKS\ntlsKeyStore=" + keystorePath(t, "server.p12") + "\ntlsKeyStorePassword=changeit\n", "is it PKCS12?"},
		{"tlsKeyStoreType=JCEKS\ntlsKeyStore=" + keystorePath(t, "server.p12") + "\n", "tlsKeyStoreType=JCEKS"},
		{"tlsKeyStoreType=PKCS12\ntlsKeyStore=" + keystorePath(t, "truststore.p12") + "\ntlsKeyStorePassword=changeit\n", "no private key"},
		{"tlsKeyStoreType=PKCS12\ntlsKeyStore=" + keystorePath(t, "server.p12") + "\ntlsKeyStorePassword=changeit\n" +
			"tlsTrustStore=" + keystorePath(t, "truststore.jks") + "\ntlsTrustStorePassword=nope\n", "tlsTrustStore"},
		{"", "needs tlsKeyStore"},
	} {
		_, err := ParseConfig(strings.NewReader(keystoreConf(t, tc.conf)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.conf, err, tc.want)
		}
	}
}

func TestJavaTLSNames(t *testing.T) {
	keys := [2]string{"tlsProtocols", "tlsCiphers"}
	for _, tc := range []struct {
		protocols, ciphers []string
		min, max           uint16
		suites             int
		refused            string
	}{
		{protocols: []string{"TLSv1.3", "TLSv1.2"}, min: tls.VersionTLS12, max: tls.VersionTLS13},
		{protocols: []string{"SSLv3"}, refused: `"SSLv3"`},
		{protocols: []string{"TLSv1", "TLSv1.2"}, refused: "without gaps"},
		{ciphers: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, max: tls.VersionTLS12, suites: 1},
		{ciphers: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}, suites: 1},
		{ciphers: []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}, min: tls.VersionTLS13},
		{ciphers: []string{"TLS_AES_128_GCM_SHA256"}, refused: "some of the TLS 1.3 suites"},
		{ciphers: []string{"TLS_DHE_RSA_WITH_AES_256_GCM_SHA384"}, refused: `"TLS_DHE_RSA_WITH_AES_256_GCM_SHA384"`},
		{ciphers: []string{"SSL_RSA_WITH_AES_128_CBC_SHA"}, max: tls.VersionTLS12, suites: 1},
		{protocols: []string{"TLSv1.3"}, ciphers: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, refused: "no connection"},
	} {
		cfg := &tls.Config{}
		err := applyJavaTLS(cfg, tc.protocols, tc.ciphers, keys)
		if tc.refused != "" {
			if !errors.Is(err, ErrTLSUnsupported) || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("%v %v: %v, want ErrTLSUnsupported naming %s", tc.protocols, tc.ciphers, err, tc.refused)
			}
			continue
		}
		if err != nil || cfg.MinVersion != tc.min || cfg.MaxVersion != tc.max || len(cfg.CipherSuites) != tc.suites {
			t.Errorf("%v %v: err %v, versions %x-%x, %d suites; want %x-%x, %d", tc.protocols, tc.ciphers, err,
				cfg.MinVersion, cfg.MaxVersion, len(cfg.CipherSuites), tc.min, tc.max, tc.suites)
		}
	}
	// A refused name is refused by ParseConfig even without a TLS port.
	_, err := ParseConfig(strings.NewReader("webServiceTlsCiphers=TLS_DHE_RSA_WITH_AES_128_GCM_SHA256\n"))
	if !errors.Is(err, ErrTLSUnsupported) || !strings.Contains(err.Error(), "webServiceTlsCiphers") {
		t.Errorf("ParseConfig: %v", err)
	}
}
