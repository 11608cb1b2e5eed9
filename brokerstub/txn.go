package brokerstub

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/proto"
)

// Transactions (PIP-31). The stub runs one transaction coordinator (TC 0, as
// a Pulsar standalone, whose pulsar/system/transaction_coordinator_assign
// topic has one partition): txn_coordinator.go keeps the transactions and
// their two-phase end; txn_handlers.go answers the coordinator's commands;
// txn_buffer.go is each topic's transaction buffer (what an open
// transaction's messages hide, markers, recovery from the ledger);
// txn_ack.go holds transactional acks pending until the end.

// tcAssignTopic is the partitioned topic whose partitions name the
// transaction coordinators; clients look up its partitions to find them.
const tcAssignTopic = "persistent://pulsar/system/transaction_coordinator_assign"

// tcCount is the number of transaction coordinators: one, as a standalone.
const tcCount = 1

// Marker types of the entries the transaction buffer writes at the end of a
// transaction (Pulsar's MarkerType TXN_COMMIT and TXN_ABORT); they are never
// dispatched.
const (
	markerTxnCommit int32 = 21
	markerTxnAbort  int32 = 22
)

// txnID is a transaction id: the coordinator id in the most significant
// bits, the coordinator's sequence number in the least.
type txnID struct{ most, least uint64 }

// String is Pulsar's TxnID.toString: "(most,least)".
func (id txnID) String() string { return fmt.Sprintf("(%d,%d)", id.most, id.least) }

// txnIDOf reads the transaction id fields of a command or metadata; ok is
// false when neither is set (not transactional).
func txnIDOf(most, least *uint64) (txnID, bool) {
	if most == nil && least == nil {
		return txnID{}, false
	}
	var id txnID
	if most != nil {
		id.most = *most
	}
	if least != nil {
		id.least = *least
	}
	return id, true
}

// txnStatus is a transaction's state at the coordinator (Pulsar's TxnStatus).
type txnStatus int

const (
	txnOpen txnStatus = iota
	txnCommitting
	txnCommitted
	txnAborting
	txnAborted
)

// String is the status as Pulsar's admin API names it.
func (s txnStatus) String() string {
	switch s {
	case txnOpen:
		return "OPEN"
	case txnCommitting:
		return "COMMITTING"
	case txnCommitted:
		return "COMMITTED"
	case txnAborting:
		return "ABORTING"
	case txnAborted:
		return "ABORTED"
	}
	return "UNKNOWN"
}

// Errors of the coordinator; txnErrorCode maps them to Pulsar's codes.
var (
	// errTxnDisabled: transactionCoordinatorEnabled is off (answered with
	// txnDisabledMsg).
	errTxnDisabled = errors.New("transactions are not enabled")
	// errTCNotFound: the id names no coordinator of this broker.
	errTCNotFound = errors.New("transaction coordinator not found")
	// errTxnNotFound: the coordinator has no such transaction (never opened,
	// or already ended and removed).
	errTxnNotFound = errors.New("transaction not found")
	// errTxnStatus: the transaction is not in a state that allows the
	// operation (an add to a committing transaction, a commit of an
	// aborting one, ...).
	errTxnStatus = errors.New("invalid transaction status")
	// errTxnNotAllowed: an operation Pulsar refuses inside a transaction
	// (a cumulative ack on a Shared or Key_Shared subscription).
	errTxnNotAllowed = errors.New("not allowed in a transaction")
	// errTxnConflict: a transactional ack of a message already acknowledged
	// or pending in another transaction.
	errTxnConflict = errors.New("transaction conflict")
)

// txnDisabledMsg is Pulsar's text when the coordinator is off, which the
// official client's TestTransactionDisabled matches.
const txnDisabledMsg = "Transactions are not enabled."

// txnErrorText is the message of an error answer for err.
func txnErrorText(err error) string {
	if errors.Is(err, errTxnDisabled) {
		return txnDisabledMsg
	}
	return err.Error()
}

// txnErrorCode maps a coordinator error to the ServerError Pulsar answers.
func txnErrorCode(err error) proto.ServerError {
	switch {
	case errors.Is(err, errTxnDisabled), errors.Is(err, errTxnNotAllowed):
		return proto.ServerError_NotAllowedError
	case errors.Is(err, errTCNotFound):
		return proto.ServerError_TransactionCoordinatorNotFound
	case errors.Is(err, errTxnNotFound), errors.Is(err, errTxnNotOwned):
		return proto.ServerError_TransactionNotFound
	case errors.Is(err, errTxnStatus):
		return proto.ServerError_InvalidTxnStatus
	case errors.Is(err, errTxnConflict):
		return proto.ServerError_TransactionConflict
	case errors.Is(err, errTopicClosed):
		return proto.ServerError_ServiceNotReady
	}
	return proto.ServerError_UnknownError
}
