package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/pulsargo/sdk/internal/limitedfile"
)

// MaxOAuth2Body bounds what the client reads of an OAuth2 issuer's
// well-known document or token answer: 1 MiB. A larger answer is an
// *OAuth2Error.
const MaxOAuth2Body = 1 << 20

// maxOAuth2Error bounds what the client reads of an issuer's error answer.
const maxOAuth2Error = 64 << 10

// oauth2Credentials is the key file of the client credentials flow.
type oauth2Credentials struct {
	Type         string `json:"type"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	ClientEmail  string `json:"client_email"`
	IssuerURL    string `json:"issuer_url"`
	Scope        string `json:"scope"`
}

// oauth2Token is the token endpoint's answer (RFC 6749 section 5.1).
type oauth2Token struct {
	AccessToken string  `json:"access_token"`
	TokenType   string  `json:"token_type"`
	ExpiresIn   float64 `json:"expires_in"`
}

// credentials reads the privateKey parameter: file://path, data:...,
// data://raw, or a path, holding the credentials JSON.
func (a *oauth2Provider) credentials() (*oauth2Credentials, error) {
	var raw []byte
	var err error
	switch k := a.keyFile; {
	case k == "":
		return nil, fmt.Errorf("%w: oauth2 %s is required", ErrAuthenticationParams, ConfigParamKeyFile)
	case strings.HasPrefix(k, "file://"):
		raw, err = limitedfile.Read(strings.TrimPrefix(k, "file://"), MaxCredentialFile)
	case strings.HasPrefix(k, "data://"):
		raw = []byte(strings.TrimPrefix(k, "data://"))
	case strings.HasPrefix(k, "data:"):
		raw, err = decodeDataURL(k)
	default:
		raw, err = limitedfile.Read(k, MaxCredentialFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: oauth2 %s: %w", ErrAuthenticationData, ConfigParamKeyFile, err)
	}
	var c oauth2Credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%w: oauth2 %s is not the credentials JSON: %w", ErrAuthenticationParams, ConfigParamKeyFile, err)
	}
	if c.ClientID == "" {
		return nil, fmt.Errorf("%w: oauth2 %s has no client_id", ErrAuthenticationParams, ConfigParamKeyFile)
	}
	return &c, nil
}

// decodeDataURL returns the data of an RFC 2397 URL:
// data:[<mediatype>][;base64],<data>.
func decodeDataURL(s string) ([]byte, error) {
	meta, data, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	if !ok || data == "" {
		return nil, fmt.Errorf("invalid data URL")
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, fmt.Errorf("invalid data URL: %w", err)
		}
		return b, nil
	}
	return []byte(data), nil
}

// fetch obtains a new access token with the client credentials grant.
func (a *oauth2Provider) fetch() (*oauth2Token, error) {
	creds, err := a.credentials()
	if err != nil {
		return nil, err
	}
	if a.endpoint == "" {
		issuer := a.issuerURL
		if issuer == "" {
			issuer = creds.IssuerURL
		}
		if a.endpoint, err = a.discover(issuer); err != nil {
			return nil, err
		}
	}
	form := url.Values{"grant_type": {ConfigParamTypeClientCredentials}, "client_id": {creds.ClientID},
		"client_secret": {creds.ClientSecret}}
	scopes := append(append([]string(nil), a.scopes...), strings.Fields(creds.Scope)...)
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if a.audience != "" {
		form.Set("audience", a.audience)
	}
	req, err := http.NewRequest(http.MethodPost, a.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("%w: oauth2 token endpoint: %w", ErrAuthenticationData, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	var tok oauth2Token
	if err := a.do(req, &tok); err != nil {
		return nil, err
	}
	if tok.AccessToken == "" {
		return nil, &OAuth2Error{Endpoint: a.endpoint, Description: "answer has no access_token"}
	}
	if tok.ExpiresIn < 0 {
		return nil, &OAuth2Error{Endpoint: a.endpoint, Description: fmt.Sprintf("answer has expires_in %v", tok.ExpiresIn)}
	}
	return &tok, nil
}

// discover reads the token endpoint from the issuer's
// /.well-known/openid-configuration.
func (a *oauth2Provider) discover(issuer string) (string, error) {
	u, err := parseHTTPURL(issuer)
	if err != nil {
		return "", fmt.Errorf("%w: oauth2 %s %q: %w", ErrAuthenticationParams, ConfigParamIssuerURL, issuer, err)
	}
	u.Path = path.Join("/", u.Path, ".well-known/openid-configuration")
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: oauth2 discovery: %w", ErrAuthenticationData, err)
	}
	req.Header.Set("Accept", "application/json")
	var doc struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	if err := a.do(req, &doc); err != nil {
		return "", err
	}
	if _, err := parseHTTPURL(doc.TokenEndpoint); err != nil {
		return "", &OAuth2Error{Endpoint: u.String(), Description: fmt.Sprintf("token_endpoint %q: %v", doc.TokenEndpoint, err)}
	}
	return doc.TokenEndpoint, nil
}

// parseHTTPURL accepts only an absolute http(s) URL.
func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("not an http(s) URL")
	}
	return u, nil
}

// do sends req and decodes a 2xx JSON answer of at most MaxOAuth2Body
// bytes into out; anything else is an *OAuth2Error.
func (a *oauth2Provider) do(req *http.Request, out any) error {
	endpoint := req.URL.String()
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: oauth2: %w", ErrAuthenticationData, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &OAuth2Error{Endpoint: endpoint, Status: resp.StatusCode}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxOAuth2Error))
		var body struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/json" || ct == "" {
			if json.Unmarshal(b, &body) == nil {
				e.Code, e.Description = body.Error, body.Description
			}
		}
		return e
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxOAuth2Body+1))
	if err != nil {
		return fmt.Errorf("%w: oauth2 %s: %w", ErrAuthenticationData, endpoint, err)
	}
	if len(b) > MaxOAuth2Body {
		return &OAuth2Error{Endpoint: endpoint, Description: fmt.Sprintf("answer larger than %d bytes", MaxOAuth2Body)}
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(out); err != nil {
		return &OAuth2Error{Endpoint: endpoint, Description: "answer is not the JSON expected: " + err.Error()}
	}
	return nil
}
