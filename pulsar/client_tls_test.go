package pulsar

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// selfSigned returns a TLS certificate for host and the PEM of its
// (self-signed) CA, written to a file in dir.
func selfSigned(t *testing.T, host string) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caFile
}

func roundTrip(t *testing.T, c Client, topic string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := c.CreateProducer(ProducerOptions{Topic: topic})
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.Send(ctx, &ProducerMessage{Payload: []byte("over tls")})
	return err
}

func TestTLSWithCAFileAndHostnameCheck(t *testing.T) {
	cert, caFile := selfSigned(t, "127.0.0.1")
	b := brokerstub.RunT(t, brokerstub.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	require.Contains(t, b.URL(), "pulsar+ssl://")

	c, err := NewClient(ClientOptions{URL: b.URL(), TLSTrustCertsFilePath: caFile, TLSValidateHostname: true})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(t, c, "tls-ok"))

	// Without the CA the broker's certificate is refused.
	bad, err := NewClient(ClientOptions{URL: b.URL(), OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer bad.Close()
	assert.Error(t, roundTrip(t, bad, "tls-untrusted"))
}

func TestTLSHostnameMismatchRefused(t *testing.T) {
	cert, caFile := selfSigned(t, "broker.example")
	b := brokerstub.RunT(t, brokerstub.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	c, err := NewClient(ClientOptions{URL: b.URL(), TLSTrustCertsFilePath: caFile, TLSValidateHostname: true,
		OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	assert.Error(t, roundTrip(t, c, "tls-mismatch"), "certificate for broker.example must not pass for 127.0.0.1")
}

func TestTokenAuthentication(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{Authenticate: func(method string, data []byte) error {
		if method != "token" || string(data) != "s3cret" {
			return errors.New("bad token")
		}
		return nil
	}})
	good, err := NewClient(ClientOptions{URL: b.URL(), Authentication: NewAuthenticationToken("s3cret")})
	require.NoError(t, err)
	defer good.Close()
	require.NoError(t, roundTrip(t, good, "auth-ok"))

	calls := 0
	supplied, err := NewClient(ClientOptions{URL: b.URL(), Authentication: NewAuthenticationTokenFromSupplier(func() (string, error) {
		calls++
		return "s3cret", nil
	})})
	require.NoError(t, err)
	defer supplied.Close()
	require.NoError(t, roundTrip(t, supplied, "auth-supplier"))
	assert.Positive(t, calls)

	bad, err := NewClient(ClientOptions{URL: b.URL(), Authentication: NewAuthenticationToken("wrong"), OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer bad.Close()
	err = roundTrip(t, bad, "auth-bad")
	require.Error(t, err)
	var se *ServerError
	if assert.ErrorAs(t, err, &se) {
		assert.Equal(t, "AuthenticationError", se.Code)
		assert.False(t, IsRetriable(err))
	}
}
