// Package auth holds the names of the authentication parameters that the
// official Go client's pulsar/auth package exports, so that code which
// builds NewAuthenticationOAuth2's params with them compiles after the
// import change. The methods themselves are in package pulsar
// (NewAuthenticationOAuth2, NewAuthentication, ...).
package auth

// The parameters of OAuth2 authentication (pulsar.NewAuthenticationOAuth2,
// or NewAuthentication("oauth2", ...)), as the official client names them.
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
