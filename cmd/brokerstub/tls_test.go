package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerTLSLines: with the TLS files of a config and TLS ports, the
// server prints the TLS URLs after the two plain lines.
func TestServerTLSLines(t *testing.T) {
	conf := writeTLSConf(t, "brokerServicePortTls=6651\nwebServicePortTls=8443\n")
	s := startRun(t, "-config", conf, "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(s.stdout.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[2], tlsListeningPrefix+"pulsar+ssl://127.0.0.1:") ||
		!strings.HasPrefix(lines[3], tlsWebServicePrefix+"https://127.0.0.1:") {
		t.Fatalf("stdout:\n%s", s.stdout.String())
	}
}

// writeTLSConf writes a self-signed certificate, its key and a broker.conf
// naming them after the lines of conf; it returns the config's path.
func writeTLSConf(t *testing.T, conf string) string {
	t.Helper()
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, keyFile, path := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "broker.conf")
	for p, data := range map[string][]byte{
		cert:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyFile: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		path:    []byte(conf + "tlsCertificateFilePath=" + cert + "\ntlsKeyFilePath=" + keyFile + "\n"),
	} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path
}
