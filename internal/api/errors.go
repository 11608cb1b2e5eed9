package api

import (
	"errors"
	"fmt"
)

// Error is the engines' error with a Result: its text is "<message>:
// <result name>". Every sentinel below is one; the errors the engines
// return wrap them (fmt.Errorf with %w). pulsar.Error is the public type
// (documented there): package pulsar's sentinels stand for these, and it
// turns the engines' errors into its own where they leave it.
type Error struct {
	msg    string
	result Result
	// also is a broader sentinel of this SDK that this one is a case of
	// (ErrSendQueueIsFull is an ErrProducerQueueFull): errors.Is matches
	// both.
	also *Error
}

// NewError returns an *Error with the official client's text for result
// and msg.
func NewError(result Result, msg string) *Error {
	return &Error{msg: fmt.Sprintf("%s: %s", msg, ResultName(result)), result: result}
}

// caseOf returns an *Error like NewError that errors.Is also matches with
// broader.
func caseOf(broader *Error, result Result, msg string) *Error {
	e := NewError(result, msg)
	e.also = broader
	return e
}

// Detailed returns an error of sentinel's Result with its own text (then
// the Result's name), for a case where the sentinel's official text would
// mislead: errors.Is matches it with sentinel, and errors.As finds it as an
// *Error.
func Detailed(sentinel *Error, format string, args ...any) *Error {
	return caseOf(sentinel, sentinel.result, fmt.Sprintf(format, args...))
}

// InvalidOption returns the error of an option check, as the official
// client returns it: a bare *Error (code may assert err.(*Error)) with
// result and the official text, which is also a case of ErrInvalidOptions.
func InvalidOption(result Result, msg string) *Error { return caseOf(ErrInvalidOptions, result, msg) }

// Error returns the text: the message and the Result's name.
func (e *Error) Error() string { return e.msg }

// Result returns the kind of failure.
func (e *Error) Result() Result { return e.result }

// Is reports whether target is the broader sentinel e is a case of, or
// stands for e or that sentinel: package pulsar's sentinels are errors of
// its own type that unwrap to the engine's sentinel they stand for, so
// that errors.Is(engineErr, pulsar.ErrX) holds.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		u, isWrapper := target.(interface{ Unwrap() error })
		if !isWrapper {
			return false
		}
		if t, ok = u.Unwrap().(*Error); !ok {
			return false
		}
		if t == e {
			return true
		}
	}
	return e.also != nil && (t == e.also || e.also.Is(t))
}

// Sentinel errors. Those the official Go client exports have its name,
// Result and text; the others are this SDK's, with the Result the official
// client reports for the same failure. Every error the pulsar package and
// the engines return wraps one of them or a broker error.
var (
	// ErrClientClosed: the Client was closed.
	ErrClientClosed = NewError(AlreadyClosedError, "client closed")
	// ErrProducerClosed: the Producer was closed (official).
	ErrProducerClosed = NewError(ProducerClosed, "producer already been closed")
	// ErrConsumerClosed: the Consumer or Reader was closed; the official
	// client's text for a Receive on a closed consumer.
	ErrConsumerClosed = NewError(ConsumerClosed, "consumer closed")
	// ErrAckOnClosedConsumer is what AckIDList gives each id on a closed
	// consumer: the official client's bare text (no result name), and a
	// case of ErrConsumerClosed for errors.Is.
	ErrAckOnClosedConsumer error = textCase{"consumer state is closed", ErrConsumerClosed}
	// ErrInvalidOptions: options were missing or inconsistent.
	ErrInvalidOptions = NewError(InvalidConfiguration, "invalid options")
	// ErrSendTimeout: a message was not acknowledged by the broker within
	// ProducerOptions.SendTimeout (official).
	ErrSendTimeout = NewError(TimeoutError, "message send timeout")
	// ErrProducerQueueFull: MaxPendingMessages or the memory limit is
	// reached and DisableBlockIfQueueFull is set. The producer returns one
	// of its cases, ErrSendQueueIsFull or ErrMemoryBufferIsFull, which
	// errors.Is matches with it too.
	ErrProducerQueueFull = NewError(ProducerQueueIsFull, "producer queue is full")
	// ErrSendQueueIsFull: MaxPendingMessages is reached and
	// DisableBlockIfQueueFull is set (official).
	ErrSendQueueIsFull = caseOf(ErrProducerQueueFull, ProducerQueueIsFull, "producer send queue is full")
	// ErrMemoryBufferIsFull: the client's memory limit is reached and
	// DisableBlockIfQueueFull is set (official).
	ErrMemoryBufferIsFull = caseOf(ErrProducerQueueFull, ClientMemoryBufferIsFull, "client memory buffer is full")
	// ErrContextExpired: the context of a Send ended while it waited for
	// room in the queue or the memory limit (official); the error wraps the
	// context's error too.
	ErrContextExpired = NewError(TimeoutError, "message send context expired")
	// ErrMessageTooLarge: a message can never be sent: it is larger than
	// the client's memory limit, or than the largest chunked message
	// (official name and text; messages larger than the broker's max
	// message size are chunked instead).
	ErrMessageTooLarge = NewError(MessageTooBig, "message size exceeds MaxMessageSize")
	// ErrMetaTooLarge: a message's metadata leaves no room for a chunk of
	// payload in the broker's max message size (official).
	ErrMetaTooLarge = NewError(InvalidMessage, "message metadata size exceeds MaxMessageSize")
	// ErrInvalidMessage: the message cannot be sent as it is, e.g. nil
	// (official).
	ErrInvalidMessage = NewError(InvalidMessage, "invalid message")
	// ErrSchema: the message does not fit the producer's schema (official).
	ErrSchema = NewError(SchemaFailure, "schema error")
	// ErrFailAddToBatch: a message could not be added to a batch
	// (official).
	ErrFailAddToBatch = NewError(AddToBatchFailed, "message add to batch failed")
	// ErrTopicNotfound: the broker answered TopicNotFound (official); a
	// broker error with that code matches it.
	ErrTopicNotfound = NewError(TopicNotFound, "topic not found")
	// ErrTopicTerminated: the broker answered TopicTerminatedError
	// (official); a broker error with that code matches it.
	ErrTopicTerminated = NewError(TopicTerminated, "topic terminated")
	// ErrProducerBlockedQuotaExceeded: a backlog quota refuses the producer
	// (official); a broker error ProducerBlockedQuotaExceededException or
	// ...Error matches it.
	ErrProducerBlockedQuotaExceeded = NewError(ProducerBlockedQuotaExceededException, "producer blocked")
	// ErrProducerFenced: another producer has exclusive access (official);
	// a broker error ProducerFenced matches it.
	ErrProducerFenced = NewError(ProducerFenced, "producer fenced")
	// ErrTimeout: a request to the broker got no answer in the operation
	// timeout.
	ErrTimeout = NewError(TimeoutError, "request timed out")
	// ErrConnectionClosed: the connection to the broker closed.
	ErrConnectionClosed = NewError(NotConnectedError, "connection closed")
	// ErrConnectionFailed: no connection to the broker could be made
	// (dial, TLS); the official client's text, "connection error".
	ErrConnectionFailed = NewError(ConnectError, "connection error")
	// ErrInvalidAck: an acknowledgment the subscription does not allow
	// (cumulative on Shared or Key_Shared); official name and text. It is a
	// case of ErrInvalidOptions.
	ErrInvalidAck = &Error{msg: "invalid ack", result: InvalidConfiguration, also: ErrInvalidOptions}
)

// The official client's transaction sentinels, with its texts.
var (
	// ErrTransaction: a transaction failed (official).
	ErrTransaction = errors.New("transaction error")
	// ErrClientTransactionsNotEnabled: the client was made without
	// transactions (official).
	ErrClientTransactionsNotEnabled = errors.New("transactions are not enabled with the client")
	// ErrMaxConcurrentOpsReached: too many concurrent transaction
	// operations (official).
	ErrMaxConcurrentOpsReached = NewError(MaxConcurrentOperationsReached, "Max concurrent operations reached")
	// ErrTransactionCoordinatorNotEnabled: the broker has no transaction
	// coordinator (official).
	ErrTransactionCoordinatorNotEnabled = NewError(TransactionCoordinatorNotEnabled,
		"The broker doesn't enable the transaction coordinator, or the transaction coordinator has not initialized")
)

// textCase is an error with a fixed text that errors.Is matches with a
// sentinel, for the places where the official client returns a bare text.
type textCase struct {
	text string
	of   *Error
}

func (e textCase) Error() string { return e.text }

// Unwrap returns the sentinel e is a case of.
func (e textCase) Unwrap() error { return e.of }
