// Package authn holds pulsargo's authentication providers, defined once:
// package pulsar (NewAuthenticationToken, ...) and package pulsar/auth (the
// official client's auth API: Provider, NewAuthenticationToken, ...) both
// return them. A provider supplies the credentials of the binary protocol
// (Name, GetData, GetTLSCertificate) and authenticates HTTP requests
// (RoundTrip over the transport given to WithTransport).
package authn
