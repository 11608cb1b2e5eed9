package pulsar

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Error is an error with a Result, as the official Go client's *Error:
// Error() is "<message>: <result name>" and Result() the kind of failure.
// Every sentinel below is an *Error; errors.As(err, &e) finds the one an
// error wraps.
type Error = api.Error

// Sentinel errors, defined once in internal/api and returned by the
// producer and consumer engines as they are. Every error this package
// returns wraps one of them or a *ServerError, so callers test with
// errors.Is and errors.As. The names the official Go client exports have
// its Result and text, and code that checks them ports unchanged.
var (
	// ErrClientClosed: the Client was closed. Result AlreadyClosedError.
	ErrClientClosed = api.ErrClientClosed
	// ErrProducerClosed: the Producer was closed. Result ProducerClosed.
	ErrProducerClosed = api.ErrProducerClosed
	// ErrConsumerClosed: the Consumer or Reader was closed. Result
	// ConsumerClosed.
	ErrConsumerClosed = api.ErrConsumerClosed
	// ErrInvalidOptions: options were missing or inconsistent. Result
	// InvalidConfiguration.
	ErrInvalidOptions = api.ErrInvalidOptions
	// ErrSendTimeout: a message was not acknowledged by the broker within
	// ProducerOptions.SendTimeout. Result TimeoutError.
	ErrSendTimeout = api.ErrSendTimeout
	// ErrProducerQueueFull: MaxPendingMessages or the memory limit is
	// reached and DisableBlockIfQueueFull is set. Send returns its cases,
	// ErrSendQueueIsFull or ErrMemoryBufferIsFull, which match it too.
	ErrProducerQueueFull = api.ErrProducerQueueFull
	// ErrSendQueueIsFull: MaxPendingMessages is reached and
	// DisableBlockIfQueueFull is set. Result ProducerQueueIsFull.
	ErrSendQueueIsFull = api.ErrSendQueueIsFull
	// ErrMemoryBufferIsFull: ClientOptions.MemoryLimitBytes is reached and
	// DisableBlockIfQueueFull is set. Result ClientMemoryBufferIsFull.
	ErrMemoryBufferIsFull = api.ErrMemoryBufferIsFull
	// ErrContextExpired: Send's context ended while it waited for room;
	// the error wraps the context's error too. Result TimeoutError.
	ErrContextExpired = api.ErrContextExpired
	// ErrMessageTooLarge: a message can never be sent: it is larger than
	// the broker's max message size and ProducerOptions.EnableChunking is
	// off, larger than the largest chunked message (2 GiB - 1), or counted
	// whole (compressed, or not chunked) and larger than
	// ClientOptions.MemoryLimitBytes. The error's text says which limit and
	// the option that sets it. Result MessageTooBig.
	ErrMessageTooLarge = api.ErrMessageTooLarge
	// ErrMetaTooLarge: a message's metadata leaves no room for payload in
	// the broker's max message size. Result InvalidMessage.
	ErrMetaTooLarge = api.ErrMetaTooLarge
	// ErrInvalidMessage: the message cannot be sent as it is (nil). Result
	// InvalidMessage.
	ErrInvalidMessage = api.ErrInvalidMessage
	// ErrSchema: the message does not fit the producer's schema. Result
	// SchemaFailure.
	ErrSchema = api.ErrSchema
	// ErrFailAddToBatch: a message could not be added to a batch. Result
	// AddToBatchFailed.
	ErrFailAddToBatch = api.ErrFailAddToBatch
	// ErrTopicNotfound: the topic does not exist; a *ServerError
	// TopicNotFound matches it. Result TopicNotFound.
	ErrTopicNotfound = api.ErrTopicNotfound
	// ErrTopicTerminated: the topic was terminated; a *ServerError
	// TopicTerminatedError matches it. Result TopicTerminated.
	ErrTopicTerminated = api.ErrTopicTerminated
	// ErrProducerBlockedQuotaExceeded: a backlog quota refuses the
	// producer; a *ServerError ProducerBlockedQuotaExceededException or
	// ProducerBlockedQuotaExceededError matches it. Result
	// ProducerBlockedQuotaExceededException.
	ErrProducerBlockedQuotaExceeded = api.ErrProducerBlockedQuotaExceeded
	// ErrProducerFenced: another producer has exclusive access to the
	// topic; a *ServerError ProducerFenced matches it. Result
	// ProducerFenced.
	ErrProducerFenced = api.ErrProducerFenced
	// ErrTimeout: a request to the broker got no answer within
	// ClientOptions.OperationTimeout. Result TimeoutError.
	ErrTimeout = api.ErrTimeout
	// ErrConnectionClosed: the connection to the broker closed. Result
	// NotConnectedError.
	ErrConnectionClosed = api.ErrConnectionClosed
	// ErrConnectionFailed: no connection to the broker could be made (dial,
	// TLS handshake); its text is the official client's "connection
	// error". Result ConnectError.
	ErrConnectionFailed = api.ErrConnectionFailed
	// ErrInvalidAck: an acknowledgment the subscription does not allow
	// (AckCumulative on Shared or Key_Shared); a case of ErrInvalidOptions.
	// Result InvalidConfiguration.
	ErrInvalidAck = api.ErrInvalidAck
)

// The official client's transaction sentinels.
var (
	// ErrTransaction: a send in a transaction failed before it was queued
	// (the transaction is not open, or its partition could not be
	// registered); the error wraps the cause too.
	ErrTransaction = api.ErrTransaction
	// ErrClientTransactionsNotEnabled: NewTransaction on a client without
	// ClientOptions.EnableTransaction.
	ErrClientTransactionsNotEnabled = api.ErrClientTransactionsNotEnabled
	// ErrMaxConcurrentOpsReached: too many concurrent transaction
	// operations. Result MaxConcurrentOperationsReached.
	ErrMaxConcurrentOpsReached = api.ErrMaxConcurrentOpsReached
	// ErrTransactionCoordinatorNotEnabled: the broker has no transaction
	// coordinator. Result TransactionCoordinatorNotEnabled.
	ErrTransactionCoordinatorNotEnabled = api.ErrTransactionCoordinatorNotEnabled
)

// ServerError is an error answered by the broker; Code is Pulsar's
// ServerError name (e.g. "TopicNotFound", "ConsumerBusy"). Its text is the
// official client's: "server error: <Code>: <Message>".
type ServerError struct {
	Code    string
	Message string
	retry   bool
}

func (e *ServerError) Error() string { return fmt.Sprintf("server error: %s: %s", e.Code, e.Message) }

// Retriable reports whether the operation may succeed if tried again.
func (e *ServerError) Retriable() bool { return e.retry }

// Result maps the broker's code as the official client does: the codes it
// turns into a sentinel (TopicNotFound, TopicTerminatedError, a blocked
// quota, ProducerFenced) have that sentinel's Result, the transaction codes
// theirs, the rest UnknownError.
func (e *ServerError) Result() Result {
	if s := e.sentinel(); s != nil {
		return s.Result()
	}
	switch e.code() {
	case proto.ServerError_TransactionNotFound:
		return TransactionNoFoundError
	case proto.ServerError_InvalidTxnStatus:
		return InvalidStatus
	}
	return UnknownError
}

// Is matches the official sentinel of the broker's code, if it has one.
func (e *ServerError) Is(target error) bool {
	s := e.sentinel()
	return s != nil && target == s
}

// code is the broker's code named by Code (UnknownError for a name that is
// none).
func (e *ServerError) code() proto.ServerError {
	return proto.ServerError(proto.ServerError_value[e.Code])
}

// sentinel returns the official client's sentinel for the code, or nil.
func (e *ServerError) sentinel() *Error {
	switch e.code() {
	case proto.ServerError_TopicNotFound:
		return ErrTopicNotfound
	case proto.ServerError_TopicTerminatedError:
		return ErrTopicTerminated
	case proto.ServerError_ProducerBlockedQuotaExceededException, proto.ServerError_ProducerBlockedQuotaExceededError:
		return ErrProducerBlockedQuotaExceeded
	case proto.ServerError_ProducerFenced:
		return ErrProducerFenced
	}
	return nil
}

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
