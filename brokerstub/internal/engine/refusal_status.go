package engine

// A refusal of a REST request carries the HTTP status and reason Pulsar
// answers it with; the admin API writes it as {"reason": ...}
// (http_errors.go).

import "fmt"

// RestError is a refusal of an admin API request: Pulsar's status code
// and reason.
type RestError struct {
	Code   int
	Reason string
}

func (e *RestError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Reason) }

// RestErr returns a restError whose reason is fmt.Sprintf(format, args...).
func RestErr(code int, format string, args ...any) *RestError {
	return &RestError{Code: code, Reason: fmt.Sprintf(format, args...)}
}
