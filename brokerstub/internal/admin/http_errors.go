package admin

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/pulsargo/sdk/brokerstub/internal/engine"
	"github.com/pulsargo/sdk/brokerstub/internal/policy"
)

// Errors of the HTTP services (admin API, lookups, console, WebSocket):
// Pulsar's status code and reason, written as {"reason": ...}.

// mapError turns an internal error into a status: policy errors by kind,
// a missing topic 404, a topic busy unloading 503.
func mapError(err error) *engine.RestError {
	msg := err.Error()
	switch {
	case errors.Is(err, policy.ErrNotFound), errors.Is(err, engine.ErrTopicNotFound), errors.Is(err, engine.ErrNoSubscription):
		return engine.RestErr(http.StatusNotFound, "%s", trimKind(msg))
	case errors.Is(err, policy.ErrExists):
		return engine.RestErr(http.StatusConflict, "%s", trimKind(msg))
	case errors.Is(err, policy.ErrPrecondition), errors.Is(err, engine.ErrInvalidTopic):
		return engine.RestErr(http.StatusPreconditionFailed, "%s", trimKind(msg))
	}
	return engine.RestErr(http.StatusServiceUnavailable, "%s", msg)
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

func writeError(w http.ResponseWriter, e *engine.RestError) {
	b, _ := json.Marshal(errorBody{Reason: e.Reason})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Code)
	_, _ = w.Write(b)
}
