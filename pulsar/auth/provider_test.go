package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/pulsar/auth"
)

// echoAuth is a web service that answers with the Authorization header it
// received.
func echoAuth(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.Header.Get("Authorization")))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// get sends a GET through the provider and returns the body.
func get(t *testing.T, p auth.Provider, url string) (string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: p}).Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	var b [512]byte
	n, _ := resp.Body.Read(b[:])
	assert.Empty(t, req.Header.Get("Authorization"), "the caller's request must not be modified")
	return string(b[:n]), nil
}

func TestProvidersAuthenticateHTTPRequests(t *testing.T) {
	srv := echoAuth(t)
	basic, err := auth.NewAuthenticationBasic("alice", "pw")
	require.NoError(t, err)
	fromParams, err := auth.NewAuthenticationTokenWithParams(map[string]string{"token": "p-tok"})
	require.NoError(t, err)
	for name, c := range map[string]struct {
		p    auth.Provider
		want string
	}{
		"token":    {auth.NewAuthenticationToken("tok"), "Bearer tok"},
		"supplier": {auth.NewAuthenticationTokenFromSupplier(func() (string, error) { return "sup", nil }), "Bearer sup"},
		"params":   {fromParams, "Bearer p-tok"},
		"basic":    {basic, "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pw"))},
		"disabled": {auth.NewAuthDisabled(), ""},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, c.p.Init())
			require.NoError(t, c.p.WithTransport(http.DefaultTransport))
			assert.Equal(t, http.DefaultTransport, c.p.Transport())
			got, err := get(t, c.p, srv.URL)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
			cert, err := c.p.GetTLSCertificate()
			assert.NoError(t, err)
			assert.Nil(t, cert)
			assert.NoError(t, c.p.Close())
		})
	}
}

func TestTokenSupplierErrorFailsTheRequest(t *testing.T) {
	srv := echoAuth(t)
	boom := errors.New("vault down")
	p := auth.NewAuthenticationTokenFromSupplier(func() (string, error) { return "", boom })
	assert.ErrorIs(t, p.Init(), boom)
	_, err := get(t, p, srv.URL)
	assert.ErrorIs(t, err, boom)
	assert.ErrorIs(t, err, auth.ErrAuthenticationData)
	assert.ErrorIs(t, auth.NewAuthenticationToken("").Init(), auth.ErrAuthenticationData)
}

func TestProviderParamsRefused(t *testing.T) {
	_, err := auth.NewAuthenticationBasic("", "pw")
	assert.ErrorIs(t, err, auth.ErrAuthenticationParams)
	_, err = auth.NewAuthenticationBasicWithParams(map[string]string{"username": "u"})
	assert.ErrorIs(t, err, auth.ErrAuthenticationParams)
	_, err = auth.NewAuthenticationTokenWithParams(map[string]string{})
	assert.ErrorIs(t, err, auth.ErrAuthenticationParams)
	_, err = auth.NewAuthenticationOAuth2WithParams(map[string]string{auth.ConfigParamType: "password"})
	assert.ErrorIs(t, err, auth.ErrAuthenticationParams)
	assert.ErrorIs(t, auth.NewAuthenticationOAuth2(map[string]string{}).Init(), auth.ErrAuthenticationParams)
	_, err = auth.NewProvider("kerberos", "{}")
	assert.ErrorIs(t, err, auth.ErrAuthenticationParams)
	p, err := auth.NewProvider("org.apache.pulsar.client.impl.auth.AuthenticationToken", `{"token":"x"}`)
	require.NoError(t, err)
	assert.Equal(t, "token", p.Name())
	data, err := p.GetData()
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
}

func TestAthenzRefusedEverywhere(t *testing.T) {
	p := auth.NewAuthenticationAthenz("pd", "td", "ts", "file:///key", "0", "", "", "", "", "https://zts", "")
	assert.Equal(t, "athenz", p.Name())
	assert.ErrorIs(t, p.Init(), auth.ErrAthenzNotSupported)
	_, err := p.GetData()
	assert.ErrorIs(t, err, auth.ErrAthenzNotSupported)
	_, err = get(t, p, echoAuth(t).URL)
	assert.ErrorIs(t, err, auth.ErrAthenzNotSupported)
	_, err = auth.NewAuthenticationAthenzWithParams(map[string]string{"providerDomain": "pd"})
	assert.ErrorIs(t, err, auth.ErrAthenzNotSupported)
	_, err = auth.NewProvider("athenz", "{}")
	assert.ErrorIs(t, err, auth.ErrAthenzNotSupported)
}

// issuer is an OAuth2 issuer that grants tok-1, tok-2, ...
func issuer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var grants atomic.Int32
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"token_endpoint": srv.URL + "/token"})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("client_id") != "cid" || r.FormValue("client_secret") != "sec" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		n := grants.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "Bearer", "expires_in": 3600})
	})
	return srv, &grants
}

func TestOAuth2RoundTripRefetchesAfter401(t *testing.T) {
	iss, grants := issuer(t)
	key := "data:," + `{"client_id":"cid","client_secret":"sec"}`
	p, err := auth.NewAuthenticationOAuth2WithParams(map[string]string{
		auth.ConfigParamType: auth.ConfigParamTypeClientCredentials, auth.ConfigParamIssuerURL: iss.URL, auth.ConfigParamKeyFile: key,
	})
	require.NoError(t, err)
	require.NoError(t, p.Init())
	var calls atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_, _ = w.Write([]byte(r.Header.Get("Authorization")))
	}))
	defer web.Close()
	require.NoError(t, p.WithTransport(http.DefaultTransport))
	got, err := get(t, p, web.URL)
	require.NoError(t, err)
	assert.Equal(t, "Bearer tok-1", got)
	got, err = get(t, p, web.URL)
	require.NoError(t, err)
	assert.Equal(t, "Bearer tok-2", got, "a 401 drops the cached token")
	got, err = get(t, p, web.URL)
	require.NoError(t, err)
	assert.Equal(t, "Bearer tok-2", got, "a good answer keeps it")
	assert.Equal(t, int32(2), grants.Load())
	data, err := p.GetData()
	require.NoError(t, err)
	assert.Equal(t, "tok-2", string(data))

	// The transport it returns authenticates too; a request that carries
	// its own Authorization goes as it is.
	req, err := http.NewRequest(http.MethodGet, web.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer mine")
	resp, err := p.Transport().RoundTrip(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	var b [64]byte
	n, _ := resp.Body.Read(b[:])
	assert.Equal(t, "Bearer mine", string(b[:n]))
}

// selfSigned makes a certificate for 127.0.0.1.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestTLSWithTransportPresentsTheCertificate(t *testing.T) {
	cert := selfSigned(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.TLS.PeerCertificates[0].Subject.CommonName))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	defer srv.Close()

	var supplied atomic.Int32
	p := auth.NewAuthenticationFromTLSCertSupplier(func() (*tls.Certificate, error) {
		supplied.Add(1)
		return &cert, nil
	})
	require.NoError(t, p.Init())
	assert.Equal(t, "tls", p.Name())
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}} //nolint:gosec // test server
	require.NoError(t, p.WithTransport(tr))
	got, err := get(t, p, srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "client", got)
	assert.GreaterOrEqual(t, supplied.Load(), int32(2), "Init and the handshake")

	assert.ErrorIs(t, p.WithTransport(roundTripFunc(nil)), auth.ErrAuthenticationParams)
	bad := auth.NewAuthenticationTLS("/nonexistent/c.pem", "/nonexistent/k.pem")
	assert.ErrorIs(t, bad.Init(), auth.ErrAuthenticationData)
	assert.ErrorIs(t, bad.WithTransport(&http.Transport{}), auth.ErrAuthenticationData)
	none := auth.NewAuthenticationTLSWithParams(map[string]string{})
	assert.ErrorIs(t, none.Init(), auth.ErrAuthenticationParams)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
