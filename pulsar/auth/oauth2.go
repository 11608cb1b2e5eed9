package auth

import "github.com/pulsargo/sdk/internal/authn"

// NewAuthenticationOAuth2 authenticates with an OAuth2 access token of the
// client credentials flow, with the params of
// NewAuthenticationOAuth2WithParams; a bad type is reported by Init. The
// official client's form takes its oauth2 package's Issuer and
// ClientCredentialsFlow, which pulsargo does not have: this one takes the
// params map, as pulsar.NewAuthenticationOAuth2 does.
func NewAuthenticationOAuth2(params map[string]string) Provider {
	return authn.NewOAuth2OrFailing(params)
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
	a, err := authn.NewOAuth2(params)
	if err != nil {
		return nil, err
	}
	return a, nil
}
