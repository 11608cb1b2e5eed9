package conn

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
)

var (
	// ErrClosed is returned for operations on a connection that has closed;
	// the caller reconnects. (api.ErrConnectionClosed: one definition.)
	ErrClosed = api.ErrConnectionClosed
	// ErrTimeout is returned when a request gets no response within the
	// operation timeout. (api.ErrTimeout.)
	ErrTimeout = api.ErrTimeout
	// ErrConnect wraps the failures to dial a broker or to set up TLS with
	// it. (api.ErrConnectionFailed.)
	ErrConnect = api.ErrConnectionFailed
	// ErrHandshake is wrapped by failures of the CONNECT handshake.
	ErrHandshake = errors.New("pulsar handshake failed")
	// ErrTooManyRedirects is returned by a lookup that keeps redirecting.
	ErrTooManyRedirects = errors.New("pulsar lookup: too many redirects")
)

// ServerError is an error a broker answered with.
type ServerError struct {
	// Code is the broker's error code.
	Code proto.ServerError
	// Message is the broker's text.
	Message string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("broker error %s: %s", e.Code, e.Message)
}

// Retriable reports whether the same request may succeed later (after a
// reconnect or a delay), as the official clients classify the codes.
func (e *ServerError) Retriable() bool {
	switch e.Code {
	case proto.ServerError_ServiceNotReady, proto.ServerError_TooManyRequests,
		proto.ServerError_MetadataError, proto.ServerError_PersistenceError,
		proto.ServerError_ProducerBusy, proto.ServerError_ConsumerBusy,
		proto.ServerError_UnknownError:
		return true
	}
	return false
}
