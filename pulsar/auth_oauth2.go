package pulsar

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/pulsar/auth"
)

// The parameter names of NewAuthenticationOAuth2, as the official client's
// (and Pulsar's Java AuthenticationOAuth2's), defined once in pulsar/auth.
const (
	oauth2ParamType     = auth.ConfigParamType
	oauth2ParamIssuer   = auth.ConfigParamIssuerURL
	oauth2ParamAudience = auth.ConfigParamAudience
	oauth2ParamScope    = auth.ConfigParamScope
	oauth2ParamKeyFile  = auth.ConfigParamKeyFile
	oauth2ParamClientID = auth.ConfigParamClientID

	oauth2ClientCredentials = auth.ConfigParamTypeClientCredentials
)

// oauth2RefreshMargin is how long before its expiry a token is replaced, as
// the official client's (at most half the token's lifetime, so that a
// short-lived token is still used).
const oauth2RefreshMargin = 60 * time.Second

// oauth2RequestTimeout bounds each request to the issuer.
const oauth2RequestTimeout = 30 * time.Second

// oauth2Auth is OAuth2 client credentials: an access token obtained from
// the issuer's token endpoint, sent as a token, cached until shortly
// before it expires.
type oauth2Auth struct {
	issuerURL string // "" takes the key file's issuer_url
	audience  string
	clientID  string // the key file's client_id wins, as the official client
	keyFile   string // privateKey: file://, data:, data:// or a path
	scopes    []string
	clock     clock.Clock
	http      *http.Client
	err       error // a configuration error, reported by init

	mu        sync.Mutex
	token     string
	refreshAt time.Time // zero: the issuer gave no expiry
	endpoint  string    // the token endpoint, once discovered
}

// NewAuthenticationOAuth2 authenticates with an OAuth2 access token of the
// client credentials flow, as the official client's. params:
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
// The key file is read and the token fetched at the first connect, cached, and fetched again
// once it is within a minute (at most half its lifetime) of the expiry the
// issuer gave (expires_in; none: kept until a web service answers 401).
// A type other than client_credentials makes NewClient fail with an error
// wrapping ErrAuthenticationParams (the official client then silently
// authenticates with nothing); a missing or bad key file or issuer URL
// makes connects fail with ErrAuthenticationParams or
// ErrAuthenticationData, and a failing or misbehaving issuer with an
// *OAuth2Error, as the official client fails only when connecting. The broker receives
// the method "token".
func NewAuthenticationOAuth2(params map[string]string) Authentication {
	a, err := newOAuth2(params)
	if err != nil {
		return &oauth2Auth{err: err}
	}
	return a
}

func newOAuth2(params map[string]string) (*oauth2Auth, error) {
	if t := params[oauth2ParamType]; t != oauth2ClientCredentials {
		return nil, fmt.Errorf("%w: oauth2: unsupported authentication type: %q", ErrAuthenticationParams, t)
	}
	return &oauth2Auth{
		issuerURL: params[oauth2ParamIssuer],
		audience:  params[oauth2ParamAudience],
		clientID:  params[oauth2ParamClientID],
		keyFile:   params[oauth2ParamKeyFile],
		scopes:    strings.Fields(params[oauth2ParamScope]),
		clock:     clock.Real{},
		http:      &http.Client{Timeout: oauth2RequestTimeout, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}},
	}, nil
}

func (*oauth2Auth) Name() string { return "token" }

// init reports a bad type. As the official client's Init it reads no key
// file and asks no issuer: those fail at the first connect.
func (a *oauth2Auth) init() error { return a.err }

// Data returns the cached access token, or a new one from the issuer.
func (a *oauth2Auth) Data() ([]byte, error) {
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

// invalidate drops the cached token, so that the next Data fetches one.
func (a *oauth2Auth) invalidate() {
	a.mu.Lock()
	a.token = ""
	a.mu.Unlock()
}
