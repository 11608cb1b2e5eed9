package auth

import (
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
)

// The errors of the authentication methods. NewClient, and the operations
// that connect, return errors that wrap them (errors.Is); a broker or web
// service that refuses the credentials answers with a *ServerError whose
// Code is "AuthenticationError" (or "AuthorizationError") instead.
var (
	// ErrAuthenticationData: the credentials could not be obtained (an
	// unreadable token or key file, an empty token, an OAuth2 issuer that
	// fails or answers garbage). Result ErrorGettingAuthenticationData.
	ErrAuthenticationData = api.NewError(api.ErrorGettingAuthenticationData, "failed to get authentication data")
	// ErrAuthenticationParams: the parameters of an authentication method
	// are malformed or missing, or name no method (NewAuthentication); a
	// case of ErrInvalidOptions. Result InvalidConfiguration.
	ErrAuthenticationParams = api.InvalidOption(api.InvalidConfiguration, "invalid authentication parameters")
	// ErrAthenzNotSupported: Athenz authentication is not implemented (it
	// needs Athenz's ZTS client, which has no well-kept Go library outside
	// the Athenz project); a case of ErrInvalidOptions. Result
	// InvalidConfiguration.
	ErrAthenzNotSupported = api.InvalidOption(api.InvalidConfiguration, "athenz authentication is not supported by pulsargo")
)

// OAuth2Error is an OAuth2 issuer's refusal (RFC 6749 section 5.2) or an
// answer that is not one: the well-known document or the token endpoint
// answered a non-2xx status, or a body that is not the JSON expected or is
// too large. It wraps ErrAuthenticationData.
type OAuth2Error struct {
	// Endpoint is the URL that answered.
	Endpoint string
	// Status is the HTTP status; 0 when the failure is in the body.
	Status int
	// Code is the issuer's "error" ("invalid_client", ...), if it gave one.
	Code string
	// Description is the issuer's "error_description", or why the answer
	// was refused.
	Description string
}

func (e *OAuth2Error) Error() string {
	s := "oauth2 " + e.Endpoint + ":"
	if e.Status != 0 {
		s += fmt.Sprintf(" status %d", e.Status)
	}
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Description != "" {
		s += " (" + e.Description + ")"
	}
	return s
}

// Unwrap returns ErrAuthenticationData.
func (e *OAuth2Error) Unwrap() error { return ErrAuthenticationData }
