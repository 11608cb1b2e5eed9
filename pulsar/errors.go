package pulsar

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Sentinel errors; every error this package returns wraps one of them or a
// *ServerError, so callers test with errors.Is and errors.As. They are
// defined once in internal/api and returned as they are by the producer and
// consumer engines.
var (
	// ErrClientClosed: the Client was closed.
	ErrClientClosed = api.ErrClientClosed
	// ErrProducerClosed: the Producer was closed.
	ErrProducerClosed = api.ErrProducerClosed
	// ErrConsumerClosed: the Consumer or Reader was closed.
	ErrConsumerClosed = api.ErrConsumerClosed
	// ErrInvalidOptions: options were missing or inconsistent.
	ErrInvalidOptions = api.ErrInvalidOptions
	// ErrSendTimeout: a message was not acknowledged by the broker within
	// ProducerOptions.SendTimeout.
	ErrSendTimeout = api.ErrSendTimeout
	// ErrProducerQueueFull: MaxPendingMessages or the memory limit is
	// reached and DisableBlockIfQueueFull is set.
	ErrProducerQueueFull = api.ErrProducerQueueFull
	// ErrMessageTooLarge: a message is larger than the client's memory limit
	// (ClientOptions.MemoryLimitBytes) and so can never be held. Messages
	// larger than the broker's max message size are chunked instead.
	ErrMessageTooLarge = api.ErrMessageTooLarge
	// ErrTimeout: a request to the broker got no answer in time.
	ErrTimeout = api.ErrTimeout
	// ErrConnectionClosed: the connection to the broker closed.
	ErrConnectionClosed = api.ErrConnectionClosed
)

// ServerError is an error answered by the broker; Code is Pulsar's
// ServerError name (e.g. "TopicNotFound", "ConsumerBusy").
type ServerError struct {
	Code    string
	Message string
	retry   bool
}

func (e *ServerError) Error() string { return fmt.Sprintf("pulsar: broker: %s: %s", e.Code, e.Message) }

// Retriable reports whether the operation may succeed if tried again.
func (e *ServerError) Retriable() bool { return e.retry }

// IsRetriable reports whether err may go away on retry: a closed
// connection, a timeout, or a retriable broker error.
func IsRetriable(err error) bool {
	var se *ServerError
	if errors.As(err, &se) {
		return se.retry
	}
	return conn.IsRetriable(err)
}

// wrapErr converts internal errors to this package's: broker errors become
// *ServerError, the rest keep their chain.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var ce *conn.ServerError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s: %w", op, &ServerError{Code: ce.Code.String(), Message: ce.Message, retry: ce.Retriable()})
	}
	return fmt.Errorf("%s: %w", op, err)
}

// serverCode returns the code of a broker error, if err is one.
func serverCode(err error) (proto.ServerError, bool) {
	var ce *conn.ServerError
	if errors.As(err, &ce) {
		return ce.Code, true
	}
	return 0, false
}
