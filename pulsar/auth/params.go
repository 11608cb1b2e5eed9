// Package auth is the official Go client's pulsar/auth API under
// pulsargo's path: the Provider interface and the constructors of its
// authentication methods (token, TLS, basic, OAuth2; Athenz refuses with
// ErrAthenzNotSupported), and the names of their parameters. Its providers
// are the ones package pulsar's NewAuthenticationToken, ... return (one
// implementation, in an internal package): any of them, or an application's
// own Provider, is a pulsar.ClientOptions.Authentication.
package auth

import "github.com/pulsargo/sdk/internal/authn"

// The parameters of OAuth2 authentication (NewAuthenticationOAuth2WithParams,
// pulsar.NewAuthenticationOAuth2, or NewProvider("oauth2", ...)), as the
// official client names them.
const (
	// ConfigParamType is the flow; its only value is
	// ConfigParamTypeClientCredentials. Required.
	ConfigParamType = authn.ConfigParamType
	// ConfigParamTypeClientCredentials is the client credentials flow.
	ConfigParamTypeClientCredentials = authn.ConfigParamTypeClientCredentials
	// ConfigParamIssuerURL is the issuer, whose
	// /.well-known/openid-configuration names the token endpoint. Default:
	// the key file's issuer_url.
	ConfigParamIssuerURL = authn.ConfigParamIssuerURL
	// ConfigParamAudience is sent as the token request's audience.
	// Default: none.
	ConfigParamAudience = authn.ConfigParamAudience
	// ConfigParamScope are space-separated scopes to request. Default: none.
	ConfigParamScope = authn.ConfigParamScope
	// ConfigParamKeyFile is the credentials JSON: file:///path, a path, or a
	// data: URL. Required.
	ConfigParamKeyFile = authn.ConfigParamKeyFile
	// ConfigParamClientID is accepted as the official client does; the key
	// file's client_id is the one sent.
	ConfigParamClientID = authn.ConfigParamClientID
)
