// Package txn is brokerstub's transactions room (PIP-31).
//
// The Coordinator keeps the transactions of coordinator 0: their table,
// the state machine OPEN -> COMMITTING/ABORTING -> removed, timeouts on the
// injected clock, the max-active limit, owner checks, the persisted log
// that a restart recovers, and the admin API's view of them. It reaches
// topics only through Topics, which brokerstub's root implements.
//
// A Buffer is one persistent topic's transaction buffer: where each open
// transaction starts (the max-read position), the aborted transactions
// whose entries dispatch passes over, and each subscription's
// PendingAcks. A Buffer is owned by its topic's goroutine; it reads the
// topic's entries through Entries and its cursors through Cursor.
//
// The room never imports brokerstub's root.
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
	// ErrNotOwned: the caller is neither the transaction's owner nor a
	// super user (Pulsar's verifyTxnOwnership); answered as
	// TransactionNotFound, as Pulsar's TransactionNotFoundException.
	ErrNotOwned = errors.New("not the owner of the transaction")
	// ErrMaxActive: a new transaction while Config.MaxActive are open
	// (Pulsar's ReachMaxActiveTxnException). As Pulsar's ServerCnx, the
	// NEW_TXN is then not answered at all, so that clients do not retry in
	// a loop (apache/pulsar#15133): the client's request times out, and a
	// transaction can be opened again once one of the open ones has ended.
	ErrMaxActive = errors.New("new transaction over maxActiveTransactionsPerCoordinator")
	// ErrClosed: the coordinator is closing (the broker stops), or an end
	// was stopped between its two phases; answered as ServiceNotReady.
	ErrClosed = errors.New("transaction coordinator closed")
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
