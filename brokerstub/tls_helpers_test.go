package brokerstub

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testPKI is a CA made for one test, with a server certificate for
// 127.0.0.1/localhost and client certificates on demand.
type testPKI struct {
	t      *testing.T
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	pool   *x509.CertPool
	server tls.Certificate
	serial int64
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	p := &testPKI{t: t, caCert: ca, caKey: key, pool: x509.NewCertPool(), serial: 1}
	p.pool.AddCert(ca)
	p.server = p.issue("localhost", x509.ExtKeyUsageServerAuth)
	return p
}

// issue signs a certificate for cn with the CA.
func (p *testPKI) issue(cn string, usage x509.ExtKeyUsage) tls.Certificate {
	p.t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		p.t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

// client returns a client certificate for role cn.
func (p *testPKI) client(cn string) tls.Certificate { return p.issue(cn, x509.ExtKeyUsageClientAuth) }

// serverConfig is the broker's TLS config: client certificates verified
// when given.
func (p *testPKI) serverConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.server}, ClientCAs: p.pool,
		ClientAuth: tls.VerifyClientCertIfGiven, MinVersion: tls.VersionTLS12}
}

// clientConfig trusts the CA and presents certs.
func (p *testPKI) clientConfig(certs ...tls.Certificate) *tls.Config {
	return &tls.Config{RootCAs: p.pool, ServerName: "localhost", Certificates: certs, MinVersion: tls.VersionTLS12}
}

// writeFiles writes the server certificate, its key and the CA as PEM
// files in a temporary directory, as Pulsar's tls*FilePath keys name them.
func (p *testPKI) writeFiles() TLSFiles {
	p.t.Helper()
	dir := p.t.TempDir()
	keyDER, err := x509.MarshalPKCS8PrivateKey(p.server.PrivateKey)
	if err != nil {
		p.t.Fatal(err)
	}
	f := TLSFiles{CertFile: filepath.Join(dir, "broker-cert.pem"), KeyFile: filepath.Join(dir, "broker-key.pem"),
		TrustCertsFile: filepath.Join(dir, "cacert.pem")}
	write := func(path, typ string, der []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			p.t.Fatal(err)
		}
	}
	write(f.CertFile, "CERTIFICATE", p.server.Certificate[0])
	write(f.KeyFile, "PRIVATE KEY", keyDER)
	write(f.TrustCertsFile, "CERTIFICATE", p.caCert.Raw)
	return f
}

// dialRawTLS opens a raw protocol connection to the TLS port.
func dialRawTLS(t *testing.T, b *Broker, cfg *tls.Config) *rawClient {
	t.Helper()
	addr := b.TLSURL()[len("pulsar+ssl://"):]
	nc, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	c := dialRawOn(t, nc)
	return c
}
