// Package auth is the official Go client's pulsar/auth API under
// pulsargo's path: the Provider interface and the constructors of its
// authentication methods (token, TLS, basic, OAuth2; Athenz refuses with
// ErrAthenzNotSupported), and the names of their parameters. Its providers
// are the ones package pulsar's NewAuthenticationToken, ... return: any of
// them, or an application's own Provider, is a
// pulsar.ClientOptions.Authentication.
package auth
