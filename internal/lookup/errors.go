package lookup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// ErrBadAnswer is wrapped when a web service's 2xx answer is not the JSON
// expected, or is longer than the client reads.
var ErrBadAnswer = errors.New("pulsar http lookup: malformed answer")

// maxReasonBody bounds how much of an error answer is read for its reason.
const maxReasonBody = 4 << 10

// StatusError is a web service's non-2xx answer. It unwraps to the
// *conn.ServerError a broker would have answered over the binary protocol
// (404: TopicNotFound, 401: AuthenticationError, or AuthorizationError when
// its reason is one of Pulsar's refusals of an operation, 403:
// AuthorizationError, 429: TooManyRequests, 503: ServiceNotReady, 5xx:
// UnknownError), so callers test both lookups with the same errors.As.
type StatusError struct {
	// Status is the HTTP status code.
	Status int
	// Reason is Pulsar's {"reason": ...}, or the start of the body.
	Reason string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("web service answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Reason)
}

// Unwrap returns the broker error of the same meaning, or nil.
func (e *StatusError) Unwrap() error {
	code, ok := statusCodes[e.Status]
	if e.Status == http.StatusUnauthorized && isAuthorizationRefusal(e.Reason) {
		code = proto.ServerError_AuthorizationError
	}
	if !ok && e.Status >= 500 {
		code, ok = proto.ServerError_UnknownError, true
	}
	if !ok {
		return nil
	}
	return &conn.ServerError{Code: code, Message: e.Reason}
}

// authorizationRefusals begin the reasons of Pulsar's 401 answers that
// refuse an authenticated role an operation rather than its credentials
// (validateTopicOperation, as a lookup without produce or consume;
// validateTenantOperation; validateAdminAccessForTenant;
// validateSuperUserAccess).
var authorizationRefusals = []string{"Unauthorized to validate", "Don't have permission", "This operation requires super-user access"}

// isAuthorizationRefusal reports whether a 401's reason refuses an
// operation.
func isAuthorizationRefusal(reason string) bool {
	for _, p := range authorizationRefusals {
		if strings.HasPrefix(reason, p) {
			return true
		}
	}
	return false
}

var statusCodes = map[int]proto.ServerError{
	http.StatusNotFound:           proto.ServerError_TopicNotFound,
	http.StatusUnauthorized:       proto.ServerError_AuthenticationError,
	http.StatusForbidden:          proto.ServerError_AuthorizationError,
	http.StatusTooManyRequests:    proto.ServerError_TooManyRequests,
	http.StatusServiceUnavailable: proto.ServerError_ServiceNotReady,
}

// statusError reads the reason of an error answer, at most maxReasonBody
// bytes of it.
func statusError(status int, body io.Reader) error {
	b, _ := io.ReadAll(io.LimitReader(body, maxReasonBody))
	var r struct {
		Reason string `json:"reason"`
	}
	reason := string(b)
	if json.Unmarshal(b, &r) == nil && r.Reason != "" {
		reason = r.Reason
	}
	if reason == "" {
		reason = "Unknown error"
	}
	return &StatusError{Status: status, Reason: reason}
}
