package brokerstub

// Errors of the HTTP services (admin API, lookups, console, WebSocket):
// Pulsar's status code and reason, written as {"reason": ...}.

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// mapError turns an internal error into a status: policy errors by kind,
// a missing topic 404, a topic busy unloading 503.
func mapError(err error) *restError {
	msg := err.Error()
	switch {
	case errors.Is(err, policy.ErrNotFound), errors.Is(err, errTopicNotFound), errors.Is(err, ErrNoSubscription):
		return restErr(http.StatusNotFound, "%s", trimKind(msg))
	case errors.Is(err, policy.ErrExists):
		return restErr(http.StatusConflict, "%s", trimKind(msg))
	case errors.Is(err, policy.ErrPrecondition), errors.Is(err, errInvalidTopic):
		return restErr(http.StatusPreconditionFailed, "%s", trimKind(msg))
	}
	return restErr(http.StatusServiceUnavailable, "%s", msg)
}

// trimKind drops the sentinel's text ("not found: ") from a wrapped error.
func trimKind(msg string) string {
	for _, p := range []string{"not found: ", "already exists: ", "precondition failed: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// errorBody is the body of an error answer, as Pulsar's RestException
// writes it.
type errorBody struct {
	Reason string `json:"reason"`
}

func writeError(w http.ResponseWriter, e *restError) {
	b, _ := json.Marshal(errorBody{Reason: e.reason})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.code)
	_, _ = w.Write(b)
}
