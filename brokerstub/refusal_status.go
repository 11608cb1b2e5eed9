package brokerstub

// A refusal of a REST request carries the HTTP status and reason Pulsar
// answers it with; the admin API writes it as {"reason": ...}
// (http_errors.go).

import "fmt"

// restError is a refusal of an admin API request: Pulsar's status code
// and reason.
type restError struct {
	code   int
	reason string
}

func (e *restError) Error() string { return fmt.Sprintf("%d %s", e.code, e.reason) }

// restErr returns a restError whose reason is fmt.Sprintf(format, args...).
func restErr(code int, format string, args ...any) *restError {
	return &restError{code: code, reason: fmt.Sprintf(format, args...)}
}
