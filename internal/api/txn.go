package api

// TxnState is the transaction engine's state of a transaction:
// pulsar.TxnState, which documents the states, takes its constants' values
// from these (the official Go client's values, in its order).
type TxnState int32

// Transaction states, numbered as the official Go client numbers them
// (the zero value is no state).
const (
	_ TxnState = iota
	// TxnOpen: the transaction can be used to send and acknowledge.
	TxnOpen
	// TxnCommitting: Commit was called and has not finished.
	TxnCommitting
	// TxnAborting: Abort was called and has not finished.
	TxnAborting
	// TxnCommitted: the coordinator committed the transaction.
	TxnCommitted
	// TxnAborted: the coordinator aborted the transaction.
	TxnAborted
	// TxnError: an operation of the transaction failed for good.
	TxnError
	// TxnTimeout: the transaction's timeout passed while it was open, or
	// its operations did not complete within the operation timeout.
	TxnTimeout
)

// String returns the official client's name of s ("TxnOpen", ...), or
// "Unknown".
func (s TxnState) String() string {
	switch s {
	case TxnOpen:
		return "TxnOpen"
	case TxnCommitting:
		return "TxnCommitting"
	case TxnAborting:
		return "TxnAborting"
	case TxnCommitted:
		return "TxnCommitted"
	case TxnAborted:
		return "TxnAborted"
	case TxnTimeout:
		return "TxnTimeout"
	case TxnError:
		return "TxnError"
	}
	return "Unknown"
}

// TxnID identifies a transaction in the engines: pulsar.TxnID (which
// documents it) has the same fields and converts to and from it.
type TxnID struct {
	// MostSigBits are the most significant 64 bits of the id.
	MostSigBits uint64
	// LeastSigBits are the least significant 64 bits of the id.
	LeastSigBits uint64
}
