package txn

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// stateError is the official client's error for an operation on a
// transaction that is not open: InvalidStatus, "Expected transaction
// state: TxnOpen, actual: <state>".
func stateError(actual api.TxnState) *api.Error {
	return api.NewError(api.InvalidStatus, fmt.Sprintf("Expected transaction state: %s, actual: %s", api.TxnOpen, actual))
}

// errOpsTimeout is Commit's and Abort's error when the transaction's sends
// and acks did not complete within the operation timeout (official text).
func errOpsTimeout() *api.Error {
	return api.NewError(api.TimeoutError, "There are some operations that are not completed after the timeout.")
}

// brokerError converts a coordinator's error to the official client's
// *Error: TransactionNotFound is TransactionNoFoundError, InvalidTxnStatus
// InvalidStatus, any other code UnknownError. The text is the code's name
// and the broker's message.
func brokerError(code proto.ServerError, msg string) *api.Error {
	r := api.UnknownError
	switch code {
	case proto.ServerError_TransactionNotFound:
		r = api.TransactionNoFoundError
	case proto.ServerError_InvalidTxnStatus:
		r = api.InvalidStatus
	}
	text := code.String()
	if msg != "" {
		text += ": " + msg
	}
	return api.NewError(r, text)
}

// responseError returns the error a coordinator response carries (set
// error field), nil when it carries none.
func responseError(code *proto.ServerError, msg string) error {
	if code == nil {
		return nil
	}
	return brokerError(*code, msg)
}

// requestError converts the error of a request: a CommandError answer to
// the official *Error, the rest (timeouts, a closed connection) as it is.
func requestError(err error) error {
	var se *conn.ServerError
	if errors.As(err, &se) {
		return brokerError(se.Code, se.Message)
	}
	return err
}

// resultOf returns the Result of the *Error err is or wraps, Ok if none.
func resultOf(err error) api.Result {
	var e *api.Error
	if errors.As(err, &e) {
		return e.Result()
	}
	return api.Ok
}
