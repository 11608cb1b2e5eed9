package brokerstub

import (
	"errors"

	"github.com/pulsargo/sdk/brokerstub/internal/txn"
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

// The transaction id, status and errors live in internal/txn; these
// names keep the root's files as they read.
type (
	txnID     = txn.ID
	txnStatus = txn.Status
)

const (
	txnOpen       = txn.Open
	txnCommitting = txn.Committing
	txnCommitted  = txn.Committed
	txnAborting   = txn.Aborting
	txnAborted    = txn.Aborted
)

var (
	errTxnDisabled   = txn.ErrDisabled
	errTCNotFound    = txn.ErrTCNotFound
	errTxnNotFound   = txn.ErrNotFound
	errTxnStatus     = txn.ErrStatus
	errTxnNotAllowed = txn.ErrNotAllowed
	errTxnConflict   = txn.ErrConflict
)

// txnDisabledMsg is Pulsar's text when the coordinator is off.
const txnDisabledMsg = txn.DisabledMsg

// txnIDOf reads the transaction id fields of a command or metadata
// (txn.IDOf).
func txnIDOf(most, least *uint64) (txnID, bool) { return txn.IDOf(most, least) }

// txnErrorText is the message of an error answer for err.
func txnErrorText(err error) string { return txn.ErrorText(err) }

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
