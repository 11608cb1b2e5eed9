// Package txn is brokerstub's transactions room (PIP-31): the
// transaction id and status as the coordinator keeps them, the
// coordinator's errors, and the ack-set arithmetic of transactional
// batch-index acks. It knows nothing of topics: brokerstub's coordinator
// and its per-topic transaction buffer call it on the topic's goroutine.
package txn

import (
	"errors"
	"fmt"
)

// ID is a transaction id: the coordinator id in the most significant
// bits, the coordinator's sequence number in the least.
type ID struct{ Most, Least uint64 }

// String is Pulsar's TxnID.toString: "(most,least)".
func (id ID) String() string { return fmt.Sprintf("(%d,%d)", id.Most, id.Least) }

// IDOf reads the transaction id fields of a command or metadata; ok is
// false when neither is set (not transactional).
func IDOf(most, least *uint64) (ID, bool) {
	if most == nil && least == nil {
		return ID{}, false
	}
	var id ID
	if most != nil {
		id.Most = *most
	}
	if least != nil {
		id.Least = *least
	}
	return id, true
}

// Status is a transaction's state at the coordinator (Pulsar's
// TxnStatus).
type Status int

// The states of a transaction, in the order it passes them.
const (
	Open Status = iota
	Committing
	Committed
	Aborting
	Aborted
)

// String is the status as Pulsar's admin API names it.
func (s Status) String() string {
	switch s {
	case Open:
		return "OPEN"
	case Committing:
		return "COMMITTING"
	case Committed:
		return "COMMITTED"
	case Aborting:
		return "ABORTING"
	case Aborted:
		return "ABORTED"
	}
	return "UNKNOWN"
}

// Errors of the coordinator; brokerstub maps them to Pulsar's codes.
var (
	// ErrDisabled: transactionCoordinatorEnabled is off (answered with
	// DisabledMsg).
	ErrDisabled = errors.New("transactions are not enabled")
	// ErrTCNotFound: the id names no coordinator of this broker.
	ErrTCNotFound = errors.New("transaction coordinator not found")
	// ErrNotFound: the coordinator has no such transaction (never opened,
	// or already ended and removed).
	ErrNotFound = errors.New("transaction not found")
	// ErrStatus: the transaction is not in a state that allows the
	// operation (an add to a committing transaction, a commit of an
	// aborting one, ...).
	ErrStatus = errors.New("invalid transaction status")
	// ErrNotAllowed: an operation Pulsar refuses inside a transaction
	// (a cumulative ack on a Shared or Key_Shared subscription).
	ErrNotAllowed = errors.New("not allowed in a transaction")
	// ErrConflict: a transactional ack of a message already acknowledged
	// or pending in another transaction.
	ErrConflict = errors.New("transaction conflict")
)

// DisabledMsg is Pulsar's text when the coordinator is off, which the
// official client's TestTransactionDisabled matches.
const DisabledMsg = "Transactions are not enabled."

// ErrorText is the message of an error answer for err.
func ErrorText(err error) string {
	if errors.Is(err, ErrDisabled) {
		return DisabledMsg
	}
	return err.Error()
}
