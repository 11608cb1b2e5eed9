package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	official "github.com/apache/pulsar-client-go/pulsar"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
)

// secPKI is a CA made for the test and PEM files of what it signs.
type secPKI struct {
	t      *testing.T
	dir    string
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	CAFile string
	serial int64
}

func newSecPKI(t *testing.T) *secPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "security-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	p := &secPKI{t: t, dir: t.TempDir(), ca: ca, caKey: key, serial: 1}
	p.CAFile = p.write("ca.pem", "CERTIFICATE", der)
	return p
}

func (p *secPKI) write(name, typ string, der []byte) string {
	path := filepath.Join(p.dir, name)
	require.NoError(p.t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
	return path
}

// issue signs a certificate for cn (valid for localhost) and returns it
// and its PEM certificate and key files.
func (p *secPKI) issue(cn string) (tls.Certificate, string, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(p.t, err)
	p.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	require.NoError(p.t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(p.t, err)
	certFile := p.write(cn+"-cert.pem", "CERTIFICATE", der)
	keyFile := p.write(cn+"-key.pem", "PRIVATE KEY", keyDER)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	require.NoError(p.t, err)
	return cert, certFile, keyFile
}

// serverTLS is the stub's TLS config: the CA verifies client certificates.
func (p *secPKI) serverTLS() *tls.Config {
	cert, _, _ := p.issue("localhost")
	pool := x509.NewCertPool()
	pool.AddCert(p.ca)
	return &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.VerifyClientCertIfGiven, MinVersion: tls.VersionTLS12}
}

// hs256Token signs {"sub": role} with secret.
func hs256Token(t *testing.T, secret []byte, role string) string {
	h, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	c, err := json.Marshal(map[string]string{"sub": role})
	require.NoError(t, err)
	in := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(in))
	return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// secureStub is a stub with authentication by providers and
// authorization: super user "admin", namespace private/auth granting
// produce and consume to "token-principal", as the official CI sets up.
func secureStub(t *testing.T, o brokerstub.Options, adminAuth string) *brokerstub.Broker {
	t.Helper()
	o.AuthenticationEnabled, o.AuthorizationEnabled = true, true
	o.SuperUserRoles = []string{"admin"}
	b := startStub(t, o)
	for _, s := range []struct{ method, path, body string }{
		{http.MethodPut, "/admin/v2/tenants/private", `{"adminRoles":[],"allowedClusters":["standalone"]}`},
		{http.MethodPut, "/admin/v2/namespaces/private/auth", `{}`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/token-principal", `["produce","consume"]`},
	} {
		req, err := http.NewRequest(s.method, b.WebServiceURL()+s.path, strings.NewReader(s.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", adminAuth)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, 2, resp.StatusCode/100, "%s %s", s.method, s.path)
	}
	return b
}

// secClient connects the official client with o (URL set by the caller).
func secClient(t *testing.T, o official.ClientOptions) official.Client {
	t.Helper()
	o.OperationTimeout, o.ConnectionTimeout, o.Logger = 3*time.Second, 3*time.Second, quietLogger()
	c, err := official.NewClient(o)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// roundTrip produces one message to topic and consumes it.
func roundTrip(t *testing.T, c official.Client, topic string) {
	t.Helper()
	cons, err := c.Subscribe(official.ConsumerOptions{Topic: topic, SubscriptionName: "sec"})
	require.NoError(t, err)
	defer cons.Close()
	prod, err := c.CreateProducer(official.ProducerOptions{Topic: topic})
	require.NoError(t, err)
	defer prod.Close()
	_, err = prod.Send(ctxT(t), &official.ProducerMessage{Payload: []byte("secret")})
	require.NoError(t, err)
	m, err := cons.Receive(ctxT(t))
	require.NoError(t, err)
	require.Equal(t, "secret", string(m.Payload()))
}

// refused checks that c cannot produce to topic. The official client
// names an AuthorizationError in its error; an AuthenticationError ends its
// connection attempts, which it reports as a connection error, so for that
// the stub's answer is checked: an ERROR on the connection.
func refused(t *testing.T, b *brokerstub.Broker, c official.Client, topic, why string) {
	t.Helper()
	var errs atomic.Int64
	b.Intercept(func(e brokerstub.Event) brokerstub.Action {
		if e.Dir == brokerstub.Outbound && e.Type == brokerstub.CmdError {
			errs.Add(1)
		}
		return brokerstub.Action{}
	})
	defer b.Intercept(nil)
	_, err := c.CreateProducer(official.ProducerOptions{Topic: topic})
	require.Error(t, err)
	if why == "AuthenticationError" {
		require.Positive(t, errs.Load(), "the stub answered no CONNECT with an error: %v", err)
		return
	}
	require.Contains(t, err.Error(), why)
}

func TestOfficialTokenAuthentication(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	secret := []byte("official security secret")
	tok, err := brokerstub.NewTokenProvider(brokerstub.TokenOptions{SecretKey: secret})
	require.NoError(t, err)
	b := secureStub(t, brokerstub.Options{AuthenticationProviders: []brokerstub.AuthenticationProvider{tok}},
		"Bearer "+hs256Token(t, secret, "admin"))
	topic := "persistent://private/auth/" + strings.ReplaceAll(t.Name(), "/", "-")

	roundTrip(t, secClient(t, official.ClientOptions{URL: b.URL(), Authentication: official.NewAuthenticationToken(hs256Token(t, secret, "token-principal"))}), topic)
	refused(t, b, secClient(t, official.ClientOptions{URL: b.URL()}), topic, "AuthenticationError")
	refused(t, b, secClient(t, official.ClientOptions{URL: b.URL(), Authentication: official.NewAuthenticationToken(hs256Token(t, []byte("forged"), "admin"))}), topic, "AuthenticationError")
	refused(t, b, secClient(t, official.ClientOptions{URL: b.URL(), Authentication: official.NewAuthenticationToken(hs256Token(t, secret, "nobody"))}), topic, "AuthorizationError")
}

func TestOfficialTLSAuthentication(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	pki := newSecPKI(t)
	_, adminCert, adminKey := pki.issue("admin")
	b := startStubTLSAuth(t, pki)
	topic := "persistent://private/auth/" + strings.ReplaceAll(t.Name(), "/", "-")
	_, tpCert, tpKey := pki.issue("token-principal")

	tlsOpts := func(auth official.Authentication) official.ClientOptions {
		return official.ClientOptions{URL: b.TLSURL(), TLSTrustCertsFilePath: pki.CAFile, TLSValidateHostname: true, Authentication: auth}
	}
	roundTrip(t, secClient(t, tlsOpts(official.NewAuthenticationTLS(adminCert, adminKey))), topic)
	roundTrip(t, secClient(t, tlsOpts(official.NewAuthenticationTLS(tpCert, tpKey))), topic)
	refused(t, b, secClient(t, tlsOpts(nil)), topic, "AuthenticationError")
	_, otherCert, otherKey := newSecPKI(t).issue("admin")
	_, err := secClient(t, tlsOpts(official.NewAuthenticationTLS(otherCert, otherKey))).CreateProducer(official.ProducerOptions{Topic: topic})
	require.Error(t, err, "a certificate of another CA")
}

// startStubTLSAuth starts a stub with a TLS port, TLS authentication and
// the grants of secureStub, set up over HTTPS with the admin's certificate.
func startStubTLSAuth(t *testing.T, pki *secPKI) *brokerstub.Broker {
	t.Helper()
	o := brokerstub.Options{TLS: pki.serverTLS(), TLSAddr: "127.0.0.1:0", WebServiceTLSAddr: "127.0.0.1:0",
		AuthenticationEnabled: true, AuthorizationEnabled: true, SuperUserRoles: []string{"admin"},
		AuthenticationProviders: []brokerstub.AuthenticationProvider{brokerstub.NewTLSProvider()}}
	b := startStub(t, o)
	cert, _, _ := pki.issue("admin")
	pool := x509.NewCertPool()
	pool.AddCert(pki.ca)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}}
	for _, s := range []struct{ method, path, body string }{
		{http.MethodPut, "/admin/v2/tenants/private", `{"adminRoles":[],"allowedClusters":["standalone"]}`},
		{http.MethodPut, "/admin/v2/namespaces/private/auth", `{}`},
		{http.MethodPost, "/admin/v2/namespaces/private/auth/permissions/token-principal", `["produce","consume"]`},
	} {
		req, err := http.NewRequest(s.method, b.WebServiceTLSURL()+s.path, strings.NewReader(s.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, 2, resp.StatusCode/100, "%s %s", s.method, s.path)
	}
	// Over plain HTTP there is no certificate: refused.
	resp, err := http.Get(b.WebServiceURL() + "/admin/v2/tenants")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	return b
}

func TestOfficialBasicAuthentication(t *testing.T) {
	// Mostly waiting (timeouts that must pass, rates, quiet periods), on a
	// broker and clients of its own: it waits beside the other tests.
	t.Parallel()
	// admin / 123456: openssl passwd -apr1 -salt pulsargo 123456.
	basic, err := brokerstub.NewBasicProvider([]byte("admin:$apr1$pulsargo$4VBDloasO6dghLVvdvKqw/\n"))
	require.NoError(t, err)
	b := secureStub(t, brokerstub.Options{AuthenticationProviders: []brokerstub.AuthenticationProvider{basic}},
		"Basic "+base64.StdEncoding.EncodeToString([]byte("admin:123456")))
	topic := "persistent://private/auth/" + strings.ReplaceAll(t.Name(), "/", "-")
	good, err := official.NewAuthenticationBasic("admin", "123456")
	require.NoError(t, err)
	roundTrip(t, secClient(t, official.ClientOptions{URL: b.URL(), Authentication: good}), topic)
	bad, err := official.NewAuthenticationBasic("admin", "654321")
	require.NoError(t, err)
	refused(t, b, secClient(t, official.ClientOptions{URL: b.URL(), Authentication: bad}), topic, "AuthenticationError")
}
