package pulsar

import (
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar/auth"
)

func TestMTLSWithEveryWayOfGivingTheCertificate(t *testing.T) {
	ca := newTestCA(t)
	roles := make(chan string, 16)
	b := brokerstub.RunT(t, brokerstub.Options{TLS: mtlsServer(t, ca, "127.0.0.1", roles),
		Authenticate: func(method string, data []byte) error {
			if method != "tls" || len(data) != 0 {
				return errors.New("want method tls and no data")
			}
			return nil
		}})
	cert, certFile, keyFile := ca.issue(t, "role-a", false)
	cases := map[string]ClientOptions{
		"auth files":    {Authentication: NewAuthenticationTLS(certFile, keyFile)},
		"auth supplier": {Authentication: NewAuthenticationFromTLSCertSupplier(func() (*tls.Certificate, error) { return &cert, nil })},
		"options files": {TLSCertificateFile: certFile, TLSKeyFilePath: keyFile, Authentication: NewAuthenticationTLS(certFile, keyFile)},
	}
	byName, err := NewAuthentication("org.apache.pulsar.client.impl.auth.AuthenticationTls",
		"tlsCertFile:"+certFile+",tlsKeyFile:"+keyFile)
	require.NoError(t, err)
	cases["by plugin name"] = ClientOptions{Authentication: byName}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			o.URL, o.TLSTrustCertsFilePath, o.TLSValidateHostname = b.URL(), ca.file, true
			c, err := NewClient(o)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, roundTrip(t, c, "mtls"))
			assert.Equal(t, "role-a", <-roles)
		})
	}

	// Without a certificate the broker refuses the handshake.
	c, err := NewClient(ClientOptions{URL: b.URL(), TLSTrustCertsFilePath: ca.file, OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	err = roundTrip(t, c, "mtls-none")
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrConnectionFailed)
}

func TestMTLSClientCertificateFromOptionsAlone(t *testing.T) {
	ca := newTestCA(t)
	roles := make(chan string, 4)
	b := brokerstub.RunT(t, brokerstub.Options{TLS: mtlsServer(t, ca, "127.0.0.1", roles)})
	_, certFile, keyFile := ca.issue(t, "role-opts", false)
	c, err := NewClient(ClientOptions{URL: b.URL(), TLSTrustCertsFilePath: ca.file,
		TLSCertificateFile: certFile, TLSKeyFilePath: keyFile})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(t, c, "mtls-opts"))
	assert.Equal(t, "role-opts", <-roles)
}

func TestTLSCertificateSupplierCalledAtEveryHandshake(t *testing.T) {
	ca := newTestCA(t)
	roles := make(chan string, 4)
	b := brokerstub.RunT(t, brokerstub.Options{TLS: mtlsServer(t, ca, "127.0.0.1", roles)})
	first, _, _ := ca.issue(t, "first", false)
	second, _, _ := ca.issue(t, "second", false)
	current := &first
	calls := 0
	c, err := NewClient(ClientOptions{URL: b.URL(), TLSTrustCertsFilePath: ca.file,
		Authentication: NewAuthenticationFromTLSCertSupplier(func() (*tls.Certificate, error) {
			calls++
			return current, nil
		})})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(t, c, "rotate"))
	assert.Equal(t, "first", <-roles)
	current = &second
	require.NoError(t, b.Restart()) // the connection drops; the next handshake asks again
	require.NoError(t, roundTrip(t, c, "rotate"))
	assert.Equal(t, "second", <-roles)
	assert.GreaterOrEqual(t, calls, 3, "NewClient's check, then one per handshake")
}

func TestTLSAuthBadFilesFailNewClient(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	require.NoError(t, os.WriteFile(garbage, []byte("-----BEGIN CERTIFICATE-----\nnot base64\n"), 0o600))
	huge := filepath.Join(dir, "huge.pem")
	require.NoError(t, os.WriteFile(huge, make([]byte, auth.MaxCredentialFile+10), 0o600))
	ca := newTestCA(t)
	_, certFile, keyFile := ca.issue(t, "c", false)
	_, otherCert, _ := ca.issue(t, "d", false)
	for name, a := range map[string]Authentication{
		"missing":    NewAuthenticationTLS(filepath.Join(dir, "none.pem"), keyFile),
		"garbage":    NewAuthenticationTLS(garbage, keyFile),
		"huge":       NewAuthenticationTLS(huge, keyFile),
		"mismatched": NewAuthenticationTLS(otherCert, keyFile),
		"supplier":   NewAuthenticationFromTLSCertSupplier(func() (*tls.Certificate, error) { return nil, errors.New("vault down") }),
		"nil cert":   NewAuthenticationFromTLSCertSupplier(func() (*tls.Certificate, error) { return nil, nil }),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(ClientOptions{URL: "pulsar+ssl://127.0.0.1:1", Authentication: a})
			assert.Nil(t, c)
			assert.ErrorIs(t, err, ErrAuthenticationData)
		})
	}
	_, err := NewClient(ClientOptions{URL: "pulsar+ssl://127.0.0.1:1", TLSCertificateFile: certFile})
	assert.ErrorIs(t, err, ErrInvalidOptions, "a certificate without its key")
	_, err = NewClient(ClientOptions{URL: "pulsar+ssl://127.0.0.1:1", TLSCertificateFile: huge, TLSKeyFilePath: keyFile})
	assert.ErrorIs(t, err, ErrInvalidOptions)
}

func TestTLSVersionsAndCipherSuites(t *testing.T) {
	ca := newTestCA(t)
	cert, _, _ := ca.issue(t, "127.0.0.1", true)
	versions := make(chan uint16, 4)
	suites := make(chan uint16, 4)
	b := brokerstub.RunT(t, brokerstub.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
		VerifyConnection: func(cs tls.ConnectionState) error {
			versions <- cs.Version
			suites <- cs.CipherSuite
			return nil
		}}})
	suite := tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
	c, err := NewClient(ClientOptions{URL: b.URL(), TLSTrustCertsFilePath: ca.file,
		TLSMaxVersion: tls.VersionTLS12, TLSCipherSuites: []uint16{suite}})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(t, c, "tls12"))
	assert.Equal(t, uint16(tls.VersionTLS12), <-versions)
	assert.Equal(t, suite, <-suites)

	// A client that insists on TLS 1.3 against a broker capped at 1.2 fails.
	b12 := brokerstub.RunT(t, brokerstub.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS12}})
	c13, err := NewClient(ClientOptions{URL: b12.URL(), TLSTrustCertsFilePath: ca.file, TLSMinVersion: tls.VersionTLS13,
		OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer c13.Close()
	assert.ErrorIs(t, roundTrip(t, c13, "tls13"), ErrConnectionFailed)

	for name, o := range map[string]ClientOptions{
		"min above max":   {TLSMinVersion: tls.VersionTLS13, TLSMaxVersion: tls.VersionTLS12},
		"unknown version": {TLSMinVersion: 0x0200},
		"unknown suite":   {TLSCipherSuites: []uint16{0xbeef}},
	} {
		o.URL = "pulsar+ssl://127.0.0.1:1"
		_, err := NewClient(o)
		var pe *Error
		if assert.ErrorAs(t, err, &pe, name) {
			assert.Equal(t, InvalidConfiguration, pe.Result(), name)
		}
	}
}

func TestTLSInsecureAndHostnameOptions(t *testing.T) {
	ca := newTestCA(t)
	cert, _, _ := ca.issue(t, "broker.example", true)
	b := brokerstub.RunT(t, brokerstub.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	try := func(o ClientOptions) error {
		o.URL, o.OperationTimeout = b.URL(), 2*time.Second
		c, err := NewClient(o)
		require.NoError(t, err)
		defer c.Close()
		return roundTrip(t, c, "tls-opts")
	}
	// The chain is checked without the name unless TLSValidateHostname.
	assert.NoError(t, try(ClientOptions{TLSTrustCertsFilePath: ca.file}))
	assert.ErrorIs(t, try(ClientOptions{TLSTrustCertsFilePath: ca.file, TLSValidateHostname: true}), ErrConnectionFailed)
	assert.ErrorIs(t, try(ClientOptions{}), ErrConnectionFailed, "a CA the system does not trust")
	assert.NoError(t, try(ClientOptions{TLSAllowInsecureConnection: true}))
	assert.NoError(t, try(ClientOptions{TLSAllowInsecureConnection: true, TLSValidateHostname: true}))
}
