package pulsar

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/brokerstub"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/pulsar/auth"
)

// fakeIssuer is an OAuth2 issuer: its well-known document names its token
// endpoint, which grants "tok-1", "tok-2", ... for the client credentials
// it was made with, valid for expiresIn seconds (0: no expires_in).
type fakeIssuer struct {
	srv       *httptest.Server
	expiresIn int
	// token, when set, answers the token endpoint instead.
	token func(w http.ResponseWriter, r *http.Request)

	mu    sync.Mutex
	n     int
	forms []map[string]string
}

func newFakeIssuer(t *testing.T) *fakeIssuer {
	f := &fakeIssuer{expiresIn: 120}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, f.srv.URL, f.srv.URL+"/oauth/token")
	})
	mux.HandleFunc("/oauth/token", func(w http.ResponseWriter, r *http.Request) {
		if f.token != nil {
			f.token(w, r)
			return
		}
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		form := map[string]string{}
		for k := range r.PostForm {
			form[k] = r.PostForm.Get(k)
		}
		f.mu.Lock()
		f.forms = append(f.forms, form)
		if form["client_id"] != "client-id" || form["client_secret"] != "client-secret" {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client","error_description":"unknown client"}`))
			return
		}
		f.n++
		n := f.n
		f.mu.Unlock()
		exp := ""
		if f.expiresIn > 0 {
			exp = fmt.Sprintf(`,"expires_in":%d`, f.expiresIn)
		}
		_, _ = fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer"%s}`, n, exp)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeIssuer) grants() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *fakeIssuer) lastForm() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.forms[len(f.forms)-1]
}

// keyFile writes the credentials JSON and returns its path.
func keyFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

const goodCredentials = `{"type":"resource","client_id":"client-id","client_secret":"client-secret","scope":"from-file"}`

func (f *fakeIssuer) params(t *testing.T) map[string]string {
	return map[string]string{"type": "client_credentials", "issuerUrl": f.srv.URL, "audience": "urn:pulsar",
		"scope": "a b", "privateKey": "file://" + keyFile(t, goodCredentials)}
}

func TestOAuth2ClientCredentialsAgainstStub(t *testing.T) {
	iss := newFakeIssuer(t)
	b := brokerstub.RunT(t, brokerstub.Options{Authenticate: func(method string, data []byte) error {
		if method != "token" || !strings.HasPrefix(string(data), "tok-") {
			return errors.New("bad token")
		}
		return nil
	}})
	c, err := NewClient(ClientOptions{URL: b.URL(), Authentication: NewAuthenticationOAuth2(iss.params(t))})
	require.NoError(t, err)
	defer c.Close()
	assert.Zero(t, iss.grants(), "NewClient does not ask the issuer")
	require.NoError(t, roundTrip(t, c, "oauth2"))
	assert.Equal(t, 1, iss.grants())
	assert.Equal(t, map[string]string{"grant_type": "client_credentials", "client_id": "client-id",
		"client_secret": "client-secret", "audience": "urn:pulsar", "scope": "a b from-file"}, iss.lastForm())

	// By plugin name, with the Java class name and JSON params.
	byName, err := NewAuthentication("org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2",
		fmt.Sprintf(`{"type":"client_credentials","issuerUrl":%q,"privateKey":%q}`, iss.srv.URL,
			"data:application/json;base64,"+base64.StdEncoding.EncodeToString([]byte(goodCredentials))))
	require.NoError(t, err)
	c2, err := NewClient(ClientOptions{URL: b.URL(), Authentication: byName})
	require.NoError(t, err)
	defer c2.Close()
	require.NoError(t, roundTrip(t, c2, "oauth2-by-name"))
}

func TestOAuth2TokenCachedAndRefreshedBeforeExpiry(t *testing.T) {
	iss := newFakeIssuer(t)
	a, err := newOAuth2ForTest(iss.params(t))
	require.NoError(t, err)
	clk := clock.NewFake(time.Unix(1000, 0))
	a.SetClock(clk)
	data := func() string {
		d, err := a.GetData()
		require.NoError(t, err)
		return string(d)
	}
	assert.Equal(t, "tok-1", data())
	assert.Equal(t, "tok-1", data(), "cached")
	clk.Advance(59 * time.Second) // expires at 120 s; replaced from 60 s
	assert.Equal(t, "tok-1", data())
	clk.Advance(2 * time.Second)
	assert.Equal(t, "tok-2", data(), "refreshed a minute before expiry")
	a.Invalidate()
	assert.Equal(t, "tok-3", data(), "fetched anew once a web service refused it")

	// A short-lived token is used for half its life, not fetched every time.
	iss.expiresIn = 10
	a.Invalidate()
	assert.Equal(t, "tok-4", data())
	clk.Advance(4 * time.Second)
	assert.Equal(t, "tok-4", data())
	clk.Advance(2 * time.Second)
	assert.Equal(t, "tok-5", data())

	// No expires_in: kept.
	iss.expiresIn = 0
	a.Invalidate()
	assert.Equal(t, "tok-6", data())
	clk.Advance(24 * time.Hour)
	assert.Equal(t, "tok-6", data())
}

func TestOAuth2IssuerMisbehaving(t *testing.T) {
	huge := strings.Repeat(" ", auth.MaxOAuth2Body+1) + `{"access_token":"x"}`
	for name, h := range map[string]func(w http.ResponseWriter, r *http.Request){
		"garbage":         func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>hello")) },
		"huge":            func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(huge)) },
		"no access_token": func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"token_type":"Bearer"}`)) },
		"negative expiry": func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"access_token":"x","expires_in":-5}`))
		},
		"500 html": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(huge))
		},
	} {
		t.Run(name, func(t *testing.T) {
			iss := newFakeIssuer(t)
			iss.token = h
			a, err := newOAuth2ForTest(iss.params(t))
			require.NoError(t, err)
			_, err = a.GetData()
			var oe *OAuth2Error
			require.ErrorAs(t, err, &oe)
			assert.ErrorIs(t, err, ErrAuthenticationData)
			assert.Less(t, len(err.Error()), 4096, "the error does not carry the body")
		})
	}

	t.Run("refused client", func(t *testing.T) {
		iss := newFakeIssuer(t)
		p := iss.params(t)
		p["privateKey"] = "data:," + `{"client_id":"client-id","client_secret":"wrong"}`
		a, err := newOAuth2ForTest(p)
		require.NoError(t, err)
		_, err = a.GetData()
		var oe *OAuth2Error
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, http.StatusUnauthorized, oe.Status)
		assert.Equal(t, "invalid_client", oe.Code)
		assert.NotContains(t, err.Error(), "wrong", "the secret is not in the error")
	})

	t.Run("bad well-known", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"token_endpoint":"ftp://x"}`))
		}))
		defer srv.Close()
		p := map[string]string{"type": "client_credentials", "issuerUrl": srv.URL, "privateKey": "data:," + goodCredentials}
		_, err := NewAuthenticationOAuth2(p).GetData()
		var oe *OAuth2Error
		assert.ErrorAs(t, err, &oe)
	})

	t.Run("issuer not a URL", func(t *testing.T) {
		b := brokerstub.RunT(t)
		p := map[string]string{"type": "client_credentials", "issuerUrl": "error-url", "privateKey": "data:," + goodCredentials}
		c, err := NewClient(ClientOptions{URL: b.URL(), Authentication: NewAuthenticationOAuth2(p), OperationTimeout: 2 * time.Second})
		require.NoError(t, err, "as the official client, NewClient does not ask the issuer")
		defer c.Close()
		err = roundTrip(t, c, "oauth2-bad")
		assert.ErrorIs(t, err, ErrAuthenticationParams)
		assert.False(t, IsRetriable(err))
	})
}

func TestOAuth2BadParams(t *testing.T) {
	for name, p := range map[string]map[string]string{
		"no type":     {"privateKey": "data:," + goodCredentials},
		"device flow": {"type": "device_code", "privateKey": "data:," + goodCredentials},
	} {
		c, err := NewClient(ClientOptions{URL: "pulsar://127.0.0.1:1", Authentication: NewAuthenticationOAuth2(p)})
		assert.Nil(t, c, name)
		assert.ErrorIs(t, err, ErrAuthenticationParams, name)
	}

	// Key file problems surface at the first connect, as the official
	// client's (its Init reads no file).
	iss := newFakeIssuer(t)
	dir := t.TempDir()
	for name, key := range map[string]string{
		"no key":           "",
		"missing file":     "file://" + filepath.Join(dir, "none.json"),
		"bad data URL":     "data:;base64,%%%",
		"not JSON":         "data:,client_id=x",
		"no client_id":     "data:,{}",
		"huge credentials": keyFile(t, strings.Repeat(" ", auth.MaxCredentialFile+1)),
	} {
		t.Run(name, func(t *testing.T) {
			p := map[string]string{"type": "client_credentials", "issuerUrl": iss.srv.URL}
			if key != "" {
				p["privateKey"] = key
			}
			a := NewAuthenticationOAuth2(p)
			require.NoError(t, a.Init())
			_, err := a.GetData()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrAuthenticationParams) || errors.Is(err, ErrAuthenticationData), err)
		})
	}
	assert.Zero(t, iss.grants())
}

// clockedAuth is the OAuth2 provider with its clock replaceable, as
// auth.NewAuthenticationOAuth2WithParams returns it.
type clockedAuth interface {
	Authentication
	auth.Invalidator
	SetClock(clock.Clock)
}

// newOAuth2ForTest returns the OAuth2 provider of params, whose clock a test
// may replace.
func newOAuth2ForTest(params map[string]string) (clockedAuth, error) {
	a, err := auth.NewAuthenticationOAuth2WithParams(params)
	if err != nil {
		return nil, err
	}
	c, ok := a.(clockedAuth)
	if !ok {
		return nil, fmt.Errorf("the OAuth2 provider %T cannot take a clock", a)
	}
	return c, nil
}
