package auth

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pulsargo/sdk/internal/clock"
)

// NewAuthenticationOAuth2 authenticates with an OAuth2 access token of the
// client credentials flow, with the params of
// NewAuthenticationOAuth2WithParams; a bad type is reported by Init. The
// official client's form takes its oauth2 package's Issuer and
// ClientCredentialsFlow, which pulsargo does not have: this one takes the
// params map, as pulsar.NewAuthenticationOAuth2 does.
func NewAuthenticationOAuth2(params map[string]string) Provider {
	return newOAuth2OrFailing(params)
}

// NewAuthenticationOAuth2WithParams authenticates with an OAuth2 access
// token of the client credentials flow. params (the ConfigParam names):
// "type" "client_credentials" (required), "privateKey" the credentials
// JSON as file:///path, a path or a data: URL (required), "issuerUrl"
// (default the key file's issuer_url), "audience" and "scope" (default
// none). The token is fetched at the first use, cached, and fetched again
// a minute (at most half its lifetime) before it expires, or after a 401.
// A type other than client_credentials is an error wrapping
// ErrAuthenticationParams.
func NewAuthenticationOAuth2WithParams(params map[string]string) (Provider, error) {
	a, err := newOAuth2(params)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// The parameters of OAuth2 authentication (NewAuthenticationOAuth2WithParams,
// pulsar.NewAuthenticationOAuth2, or NewProvider("oauth2", ...)), as the
// official client names them.
const (
	// ConfigParamType is the flow; its only value is
	// ConfigParamTypeClientCredentials. Required.
	ConfigParamType = "type"
	// ConfigParamTypeClientCredentials is the client credentials flow.
	ConfigParamTypeClientCredentials = "client_credentials"
	// ConfigParamIssuerURL is the issuer, whose
	// /.well-known/openid-configuration names the token endpoint. Default:
	// the key file's issuer_url.
	ConfigParamIssuerURL = "issuerUrl"
	// ConfigParamAudience is sent as the token request's audience.
	// Default: none.
	ConfigParamAudience = "audience"
	// ConfigParamScope are space-separated scopes to request. Default: none.
	ConfigParamScope = "scope"
	// ConfigParamKeyFile is the credentials JSON: file:///path, a path, or a
	// data: URL. Required.
	ConfigParamKeyFile = "privateKey"
	// ConfigParamClientID is accepted as the official client does; the key
	// file's client_id is the one sent.
	ConfigParamClientID = "clientId"
)

// oauth2RefreshMargin is how long before its expiry a token is replaced, as
// the official client's (at most half the token's lifetime, so that a
// short-lived token is still used).
const oauth2RefreshMargin = 60 * time.Second

// oauth2RequestTimeout bounds each request to the issuer.
const oauth2RequestTimeout = 30 * time.Second

// oauth2Provider is OAuth2 client credentials: an access token obtained from
// the issuer's token endpoint, sent as a token, cached until shortly
// before it expires.
type oauth2Provider struct {
	issuerURL string // "" takes the key file's issuer_url
	audience  string
	clientID  string // the key file's client_id wins, as the official client
	keyFile   string // privateKey: file://, data:, data:// or a path
	scopes    []string
	clock     clock.Clock
	http      *http.Client
	err       error // a configuration error, reported by Init

	mu        sync.Mutex
	token     string
	refreshAt time.Time // zero: the issuer gave no expiry
	endpoint  string    // the token endpoint, once discovered

	transport
}

// newOAuth2 authenticates with an OAuth2 access token of the client
// credentials flow, as the official client's. params:
//
//	type        "client_credentials" (the only flow; required)
//	issuerUrl   the issuer; its /.well-known/openid-configuration names the
//	            token endpoint. Default: the key file's issuer_url
//	privateKey  the credentials JSON (client_id, client_secret, optional
//	            issuer_url and scope) as file:///path, a path, or a data:
//	            URL (data:application/json;base64,... or plain); required
//	audience    sent as the token request's audience. Default: none
//	scope       space-separated scopes, added to the key file's. Default: none
//	clientId    accepted, as the official client; the key file's client_id is sent
//
// The key file is read and the token fetched at the first connect, cached,
// and fetched again once it is within a minute (at most half its lifetime)
// of the expiry the issuer gave (expires_in; none: kept until a web service
// answers 401). A type other than client_credentials is an error wrapping
// ErrAuthenticationParams; a missing or bad key file or issuer URL makes
// connects fail with ErrAuthenticationParams or ErrAuthenticationData, and
// a failing or misbehaving issuer with an *OAuth2Error, as the official
// client fails only when connecting. The broker receives the method
// "token".
func newOAuth2(params map[string]string) (*oauth2Provider, error) {
	if t := params[ConfigParamType]; t != ConfigParamTypeClientCredentials {
		return nil, fmt.Errorf("%w: oauth2: unsupported authentication type: %q", ErrAuthenticationParams, t)
	}
	return &oauth2Provider{
		issuerURL: params[ConfigParamIssuerURL],
		audience:  params[ConfigParamAudience],
		clientID:  params[ConfigParamClientID],
		keyFile:   params[ConfigParamKeyFile],
		scopes:    strings.Fields(params[ConfigParamScope]),
		clock:     clock.Real{},
		http:      &http.Client{Timeout: oauth2RequestTimeout, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}},
	}, nil
}

// newOAuth2OrFailing is newOAuth2 whose configuration error is reported by
// Init (NewClient) and GetData instead (the official client then silently
// authenticates with nothing).
func newOAuth2OrFailing(params map[string]string) Provider {
	a, err := newOAuth2(params)
	if err != nil {
		return &oauth2Provider{err: err, clock: clock.Real{}}
	}
	return a
}

// SetClock replaces the clock that decides when a token is refreshed
// (default the real one); call it before the provider is used.
func (a *oauth2Provider) SetClock(c clock.Clock) { a.clock = c }

func (*oauth2Provider) Name() string { return "token" }

// Init reports a bad type. As the official client's Init it reads no key
// file and asks no issuer: those fail at the first connect.
func (a *oauth2Provider) Init() error { return a.err }

// GetTLSCertificate returns none.
func (*oauth2Provider) GetTLSCertificate() (*tls.Certificate, error) { return nil, nil }

// Close releases nothing.
func (*oauth2Provider) Close() error { return nil }

// RoundTrip sends req with "Authorization: Bearer <access token>" (a
// request that already has an Authorization header is sent as it is), and
// drops the cached token when the answer is 401, as the official client.
func (a *oauth2Provider) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return a.base().RoundTrip(req)
	}
	t, err := a.GetData()
	if err != nil {
		return nil, err
	}
	resp, err := a.withHeader(req, "Authorization", "Bearer "+string(t))
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		a.Invalidate()
	}
	return resp, err
}

// Transport returns a transport that authenticates as RoundTrip does, over
// the one set with WithTransport.
func (a *oauth2Provider) Transport() http.RoundTripper { return roundTripper(a.RoundTrip) }

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// GetData returns the cached access token, or a new one from the issuer.
func (a *oauth2Provider) GetData() ([]byte, error) {
	if a.err != nil {
		return nil, a.err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	if a.token != "" && (a.refreshAt.IsZero() || now.Before(a.refreshAt)) {
		return []byte(a.token), nil
	}
	tok, err := a.fetch()
	if err != nil {
		return nil, err
	}
	a.token, a.refreshAt = tok.AccessToken, time.Time{}
	if tok.ExpiresIn > 0 {
		ttl := time.Duration(tok.ExpiresIn * float64(time.Second))
		a.refreshAt = now.Add(ttl - min(oauth2RefreshMargin, ttl/2))
	}
	return []byte(a.token), nil
}

// Invalidate drops the cached token, so that the next GetData fetches one.
func (a *oauth2Provider) Invalidate() {
	a.mu.Lock()
	a.token = ""
	a.mu.Unlock()
}
