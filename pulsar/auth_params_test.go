package pulsar

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/pulsar/auth"
)

func TestBasicAuthenticationAgainstStub(t *testing.T) {
	b := brokerstub.RunT(t, brokerstub.Options{Authenticate: func(method string, data []byte) error {
		if method != "basic" || string(data) != "admin:123456" {
			return errors.New("bad user or password")
		}
		return nil
	}})
	basic, err := NewAuthenticationBasic("admin", "123456")
	require.NoError(t, err)
	javaStyle, err := NewAuthentication("org.apache.pulsar.client.impl.auth.AuthenticationBasic", `{"userId":"admin","password":"123456"}`)
	require.NoError(t, err)
	goStyle, err := NewAuthentication("basic", "username:admin,password:123456")
	require.NoError(t, err)
	for _, a := range []Authentication{basic, javaStyle, goStyle} {
		c, err := NewClient(ClientOptions{URL: b.URL(), Authentication: a})
		require.NoError(t, err)
		require.NoError(t, roundTrip(t, c, "basic"))
		c.Close()
	}
	wrong, err := NewAuthenticationBasic("admin", "nope")
	require.NoError(t, err)
	c, err := NewClient(ClientOptions{URL: b.URL(), Authentication: wrong, OperationTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	var se *ServerError
	require.ErrorAs(t, roundTrip(t, c, "basic-wrong"), &se)
	assert.Equal(t, "AuthenticationError", se.Code)

	for _, up := range [][2]string{{"", "p"}, {"u", ""}} {
		_, err := NewAuthenticationBasic(up[0], up[1])
		assert.ErrorIs(t, err, ErrAuthenticationParams)
		assert.ErrorIs(t, err, ErrInvalidOptions)
	}
}

func TestNewAuthenticationNamesAndParamFormats(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("file-jwt\n"), 0o600))
	for _, c := range []struct{ name, params, method, data string }{
		{"", "", "", ""},
		{"token", `{"token":"jwt-1"}`, "token", "jwt-1"},
		{"token", "token:jwt-2", "token", "jwt-2"},
		{"token", "jwt-3", "token", "jwt-3"},
		{"token", `{"file":"` + tokenFile + `"}`, "token", "file-jwt"},
		{"org.apache.pulsar.client.impl.auth.AuthenticationToken", "file://" + tokenFile, "token", "file-jwt"},
		{"basic", `{"username":"u","password":"p"}`, "basic", "u:p"},
	} {
		a, err := NewAuthentication(c.name, c.params)
		require.NoError(t, err, c)
		assert.Equal(t, c.method, a.Name(), c)
		d, err := a.GetData()
		require.NoError(t, err, c)
		assert.Equal(t, c.data, string(d), c)
	}

	for _, c := range []struct{ name, params string }{
		{"kerberos", ""},
		{"tls", `{"tlsCertFile":"/c.pem"}`},
		{"tls", `{"tlsCertFile": 5}`},
		{"tls", `{not json`},
		{"basic", "username"},
		{"basic", ":x"},
		{"token", ""},
		{"token", `{"other":"x"}`},
		{"oauth2", `{"type":"password"}`},
		{"basic", strings.Repeat("k:v,", auth.MaxParams)},
	} {
		_, err := NewAuthentication(c.name, c.params)
		assert.ErrorIs(t, err, ErrAuthenticationParams, c)
	}
	for _, name := range []string{"athenz", "org.apache.pulsar.client.impl.auth.AuthenticationAthenz"} {
		_, err := NewAuthentication(name, `{"tenantDomain":"d"}`)
		assert.ErrorIs(t, err, ErrAthenzNotSupported)
	}

	// A token file that went missing fails NewClient, as the official Init.
	_, err := NewClient(ClientOptions{URL: "pulsar://127.0.0.1:1", Authentication: NewAuthenticationTokenFromFile(filepath.Join(dir, "none"))})
	assert.ErrorIs(t, err, ErrAuthenticationData)
	_, err = NewClient(ClientOptions{URL: "pulsar://127.0.0.1:1", Authentication: NewAuthenticationToken("")})
	assert.ErrorIs(t, err, ErrAuthenticationData)
}

func TestHTTPSLookupSendsCredentialsAndClientCertificate(t *testing.T) {
	ca := newTestCA(t)
	roles := make(chan string, 16)
	b := brokerstub.RunT(t, brokerstub.Options{TLS: mtlsServer(t, ca, "127.0.0.1", roles)})
	rec := &webRecorder{}
	web := httptest.NewUnstartedServer(rec.wrap(b.AdminHandler()))
	web.TLS = mtlsServer(t, ca, "127.0.0.1", roles)
	web.StartTLS()
	defer web.Close()
	_, certFile, keyFile := ca.issue(t, "web-role", false)
	basic, err := NewAuthenticationBasic("admin", "123456")
	require.NoError(t, err)
	c, err := NewClient(ClientOptions{URL: web.URL, TLSTrustCertsFilePath: ca.file, TLSValidateHostname: true,
		TLSCertificateFile: certFile, TLSKeyFilePath: keyFile, Authentication: basic})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(t, c, "https-basic"))
	paths, auth := rec.seen()
	require.NotEmpty(t, paths)
	for _, h := range auth {
		assert.Equal(t, "Basic YWRtaW46MTIzNDU2", h)
	}
	assert.Equal(t, "web-role", <-roles)
}

func TestHTTPLookupOAuth2BearerAndRefetchAfter401(t *testing.T) {
	iss := newFakeIssuer(t)
	b := brokerstub.RunT(t)
	rec := &webRecorder{}
	refused := 0
	web := httptest.NewServer(rec.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer tok-1" && refused == 0 {
			refused++
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"reason":"token expired"}`))
			return
		}
		b.AdminHandler().ServeHTTP(w, r)
	})))
	defer web.Close()
	c, err := NewClient(ClientOptions{URL: web.URL, Authentication: NewAuthenticationOAuth2(iss.params(t)), OperationTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	err = roundTrip(t, c, "http-oauth2")
	var se *ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "AuthenticationError", se.Code)
	require.NoError(t, roundTrip(t, c, "http-oauth2"), "the 401 dropped tok-1")
	_, auth := rec.seen()
	assert.Equal(t, "Bearer tok-1", auth[0])
	assert.Equal(t, "Bearer tok-2", auth[len(auth)-1])
}

func TestAthenzRefusedClearly(t *testing.T) {
	_, err := NewClient(ClientOptions{URL: "pulsar://127.0.0.1:1", Authentication: NewAuthenticationAthenz(map[string]string{"tenantDomain": "d"})})
	assert.ErrorIs(t, err, ErrAthenzNotSupported)
	assert.ErrorIs(t, err, ErrInvalidOptions)
}
