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
// Every sentinel of this package (ErrSendTimeout, ErrProducerClosed, ...)
// is an *Error, and so is every error it returns that has a Result:
// errors.As(err, &e) finds it, and errors.Is matches it with the
// sentinels it is a case of. Unwrap gives the producer's, consumer's or
// connection's error it reports, if any.
type Error struct {
	msg    string
	result Result
	// also is the broader sentinel this error is a case of (an option
	// check's error is a case of ErrInvalidOptions): errors.Is matches
	// both.
	also *Error
	// cause is the engine's error this one reports (for a sentinel, the
	// engine's sentinel it stands for): errors.Is matches through it.
	cause error
}

// newError returns an *Error with the official client's text for result
// and msg.
func newError(result Result, msg string) *Error {
	return &Error{msg: msg + ": " + api.ResultName(api.Result(result)), result: result}
}

// invalidOption returns the error of an option check, as the official
// client returns it: a bare *Error (code may assert err.(*Error)) with
// result and the official text, which is also a case of ErrInvalidOptions.
func invalidOption(result Result, msg string) *Error {
	e := newError(result, msg)
	e.also = ErrInvalidOptions
	return e
}

// engineError returns the *Error of this package that stands for an
// engine's sentinel: the same text and Result, and errors.Is matches the
// engine's errors that wrap it.
func engineError(e *api.Error) *Error {
	return &Error{msg: e.Error(), result: Result(e.Result()), cause: e}
}

// Error returns the text: the message and the Result's name.
func (e *Error) Error() string { return e.msg }

// Result returns the kind of failure.
func (e *Error) Result() Result { return e.result }

// Is reports whether target is a broader sentinel e is a case of (an
// ErrSendQueueIsFull is an ErrProducerQueueFull).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && e.also != nil && (t == e.also || e.also.Is(t))
}

// Unwrap returns the error e reports, nil for none: for an error of the
// producer, consumer or connection, the error it came with.
func (e *Error) Unwrap() error { return e.cause }

// publicErr returns err, where it wraps an engine's *Error and no *Error
// of this package, as an *Error of this package with err's text and
// Result, which errors.As finds; errors.Is matches what err matched. An
// engine's sentinel itself becomes this package's.
func publicErr(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*api.Error); ok {
		if s := sentinelOf(e); s != nil {
			return s
		}
	}
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	ae, ok := errors.AsType[*api.Error](err)
	if !ok {
		return err
	}
	return &Error{msg: err.Error(), result: Result(ae.Result()), cause: err}
}

// sentinelOf returns this package's sentinel for an engine's, nil if e is
// none.
func sentinelOf(e *api.Error) *Error {
	for _, s := range engineSentinels() {
		if s.cause == e {
			return s
		}
	}
	return nil
}

// engineSentinels are the sentinels that stand for an engine's.
func engineSentinels() []*Error {
	return []*Error{ErrClientClosed, ErrProducerClosed, ErrConsumerClosed, ErrInvalidOptions, ErrSendTimeout,
		ErrProducerQueueFull, ErrSendQueueIsFull, ErrMemoryBufferIsFull, ErrContextExpired, ErrMessageTooLarge,
		ErrMetaTooLarge, ErrInvalidMessage, ErrSchema, ErrFailAddToBatch, ErrTopicNotfound, ErrTopicTerminated,
		ErrProducerBlockedQuotaExceeded, ErrProducerFenced, ErrTimeout, ErrConnectionClosed, ErrConnectionFailed,
		ErrInvalidAck, ErrMaxConcurrentOpsReached, ErrTransactionCoordinatorNotEnabled,
		ErrAuthenticationData, ErrAuthenticationParams, ErrAthenzNotSupported}
}

// Sentinel errors. Every error this package returns wraps one of them or
// a *ServerError, so callers test with errors.Is and errors.As. The names
// the official Go client exports have its Result and text, and code that
// checks them ports unchanged. Compare with errors.Is, not ==: an error
// of the producer, consumer or connection is a case of a sentinel, not
// the sentinel itself.
var (
	// ErrClientClosed: the Client was closed. Result AlreadyClosedError.
	ErrClientClosed = engineError(api.ErrClientClosed)
	// ErrProducerClosed: the Producer was closed. Result ProducerClosed.
	ErrProducerClosed = engineError(api.ErrProducerClosed)
	// ErrConsumerClosed: the Consumer or Reader was closed. Result
	// ConsumerClosed.
	ErrConsumerClosed = engineError(api.ErrConsumerClosed)
	// ErrInvalidOptions: options were missing or inconsistent. Result
	// InvalidConfiguration.
	ErrInvalidOptions = engineError(api.ErrInvalidOptions)
	// ErrSendTimeout: a message was not acknowledged by the broker within
	// ProducerOptions.SendTimeout. Result TimeoutError.
	ErrSendTimeout = engineError(api.ErrSendTimeout)
	// ErrProducerQueueFull: MaxPendingMessages or the memory limit is
	// reached and DisableBlockIfQueueFull is set. Send returns its cases,
	// ErrSendQueueIsFull or ErrMemoryBufferIsFull, which match it too.
	ErrProducerQueueFull = engineError(api.ErrProducerQueueFull)
	// ErrSendQueueIsFull: MaxPendingMessages is reached and
	// DisableBlockIfQueueFull is set. Result ProducerQueueIsFull.
	ErrSendQueueIsFull = engineError(api.ErrSendQueueIsFull)
	// ErrMemoryBufferIsFull: ClientOptions.MemoryLimitBytes is reached and
	// DisableBlockIfQueueFull is set. Result ClientMemoryBufferIsFull.
	ErrMemoryBufferIsFull = engineError(api.ErrMemoryBufferIsFull)
	// ErrContextExpired: Send's context ended while it waited for room;
	// the error wraps the context's error too. Result TimeoutError.
	ErrContextExpired = engineError(api.ErrContextExpired)
	// ErrMessageTooLarge: a message can never be sent: it is larger than
	// the broker's max message size and ProducerOptions.EnableChunking is
	// off, larger than the largest chunked message (2 GiB - 1), or counted
	// whole (compressed, or not chunked) and larger than
	// ClientOptions.MemoryLimitBytes. The error's text says which limit and
	// the option that sets it. Result MessageTooBig.
	ErrMessageTooLarge = engineError(api.ErrMessageTooLarge)
	// ErrMetaTooLarge: a message's metadata leaves no room for payload in
	// the broker's max message size. Result InvalidMessage.
	ErrMetaTooLarge = engineError(api.ErrMetaTooLarge)
	// ErrInvalidMessage: the message cannot be sent as it is (nil). Result
	// InvalidMessage.
	ErrInvalidMessage = engineError(api.ErrInvalidMessage)
	// ErrSchema: the message does not fit the producer's schema. Result
	// SchemaFailure.
	ErrSchema = engineError(api.ErrSchema)
	// ErrFailAddToBatch: a message could not be added to a batch. Result
	// AddToBatchFailed.
	ErrFailAddToBatch = engineError(api.ErrFailAddToBatch)
	// ErrTopicNotfound: the topic does not exist; a *ServerError
	// TopicNotFound matches it. Result TopicNotFound.
	ErrTopicNotfound = engineError(api.ErrTopicNotfound)
	// ErrTopicTerminated: the topic was terminated; a *ServerError
	// TopicTerminatedError matches it. Result TopicTerminated.
	ErrTopicTerminated = engineError(api.ErrTopicTerminated)
	// ErrProducerBlockedQuotaExceeded: a backlog quota refuses the
	// producer; a *ServerError ProducerBlockedQuotaExceededException or
	// ProducerBlockedQuotaExceededError matches it. Result
	// ProducerBlockedQuotaExceededException.
	ErrProducerBlockedQuotaExceeded = engineError(api.ErrProducerBlockedQuotaExceeded)
	// ErrProducerFenced: another producer has exclusive access to the
	// topic; a *ServerError ProducerFenced matches it. Result
	// ProducerFenced.
	ErrProducerFenced = engineError(api.ErrProducerFenced)
	// ErrTimeout: a request to the broker got no answer within
	// ClientOptions.OperationTimeout. Result TimeoutError.
	ErrTimeout = engineError(api.ErrTimeout)
	// ErrConnectionClosed: the connection to the broker closed. Result
	// NotConnectedError.
	ErrConnectionClosed = engineError(api.ErrConnectionClosed)
	// ErrConnectionFailed: no connection to the broker could be made (dial,
	// TLS handshake); its text is the official client's "connection
	// error". Result ConnectError.
	ErrConnectionFailed = engineError(api.ErrConnectionFailed)
	// ErrInvalidAck: an acknowledgment the subscription does not allow
	// (AckCumulative on Shared or Key_Shared); a case of ErrInvalidOptions.
	// Result InvalidConfiguration.
	ErrInvalidAck = engineError(api.ErrInvalidAck)
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
	ErrMaxConcurrentOpsReached = engineError(api.ErrMaxConcurrentOpsReached)
	// ErrTransactionCoordinatorNotEnabled: the broker has no transaction
	// coordinator. Result TransactionCoordinatorNotEnabled.
	ErrTransactionCoordinatorNotEnabled = engineError(api.ErrTransactionCoordinatorNotEnabled)
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
// *ServerError, an engine's *Error this package's (publicErr); the rest
// keep their chain.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var ce *conn.ServerError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s: %w", op, &ServerError{Code: ce.Code.String(), Message: ce.Message, retry: ce.Retriable()})
	}
	return publicErr(fmt.Errorf("%s: %w", op, err))
}

// serverCode returns the code of a broker error, if err is one.
func serverCode(err error) (proto.ServerError, bool) {
	var ce *conn.ServerError
	if errors.As(err, &ce) {
		return ce.Code, true
	}
	return 0, false
}
