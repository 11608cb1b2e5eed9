package pulsar

import (
	"context"
	"fmt"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/txn"
)

// Transaction groups sends (ProducerMessage.Transaction) and
// acknowledgments (Consumer.AckWithTxn) that take effect together when it
// commits, and not at all when it aborts, as the official client's
// interface. Client.NewTransaction opens one; a Transaction implemented
// elsewhere is refused with ErrTransaction where one is used.
type Transaction interface {
	// Commit waits for the transaction's sends and acknowledgments in
	// flight (at most ClientOptions.OperationTimeout, else TxnTimeout),
	// then commits it (END_TXN COMMIT). It fails with InvalidStatus unless
	// the transaction is open (or TxnCommitting after a Commit that failed
	// with an error that may pass).
	Commit(context.Context) error
	// Abort is Commit's counterpart: it waits for the operations in flight
	// and aborts the transaction (END_TXN ABORT).
	Abort(context.Context) error
	// GetState returns the transaction's state.
	GetState() TxnState
	// GetTxnID returns the transaction's id.
	GetTxnID() TxnID
}

// TxnID identifies a transaction, as the official client's.
type TxnID struct {
	// MostSigBits is the coordinator's id (the partition of
	// TransactionCoordinatorAssign that serves it).
	MostSigBits uint64
	// LeastSigBits is the transaction's number at that coordinator.
	LeastSigBits uint64
}

// TxnState is the state of a transaction; check it before using one. The
// zero value is no state (String "Unknown").
type TxnState int32

// String returns the official client's name of s ("TxnOpen", ...), or
// "Unknown".
func (s TxnState) String() string { return api.TxnState(s).String() }

// transaction is the Transaction of Client.NewTransaction: the
// transaction engine's state machine, which reports its state and id in
// this package's types.
type transaction struct{ *txn.Txn }

// GetState returns the transaction's state.
func (t transaction) GetState() TxnState { return TxnState(t.Txn.GetState()) }

// GetTxnID returns the transaction's id.
func (t transaction) GetTxnID() TxnID { return TxnID(t.Txn.GetTxnID()) }

// Commit commits the transaction (Transaction.Commit).
func (t transaction) Commit(ctx context.Context) error { return publicErr(t.Txn.Commit(ctx)) }

// Abort aborts the transaction (Transaction.Abort).
func (t transaction) Abort(ctx context.Context) error { return publicErr(t.Txn.Abort(ctx)) }

// Transaction states, as the official client numbers them.
const (
	// TxnOpen: the transaction can be used to send and acknowledge.
	TxnOpen TxnState = TxnState(api.TxnOpen)
	// TxnCommitting: Commit was called; a Commit that failed with an error
	// that may pass leaves this state, and Commit may be called again.
	TxnCommitting TxnState = TxnState(api.TxnCommitting)
	// TxnAborting: Abort was called; as TxnCommitting for Abort.
	TxnAborting TxnState = TxnState(api.TxnAborting)
	// TxnCommitted: the transaction committed.
	TxnCommitted TxnState = TxnState(api.TxnCommitted)
	// TxnAborted: the transaction aborted.
	TxnAborted TxnState = TxnState(api.TxnAborted)
	// TxnError: an operation of the transaction failed, or the coordinator
	// does not know it (TransactionNotFound, InvalidTxnStatus).
	TxnError TxnState = TxnState(api.TxnError)
	// TxnTimeout: the timeout given to NewTransaction passed while it was
	// open, or Commit or Abort waited longer than
	// ClientOptions.OperationTimeout for its sends and acks.
	TxnTimeout TxnState = TxnState(api.TxnTimeout)
)

// transactionCoordinatorClient is the client of the cluster's transaction
// coordinators (internal/txn).
type transactionCoordinatorClient = txn.Coordinator

// TransactionCoordinatorAssign is the topic whose partitions place the
// transaction coordinators: its partition count is their number, and
// coordinator i is served by the broker of partition i.
const TransactionCoordinatorAssign = txn.AssignTopic

// NewTransaction opens a transaction on one of the coordinators (round
// robin, NEW_TXN) that turns into TxnTimeout, and is aborted by the
// broker, when timeout passes before it commits. The client must have
// ClientOptions.EnableTransaction, else ErrClientTransactionsNotEnabled.
// A timeout <= 0 is refused with ErrInvalidOptions.
func (c *client) NewTransaction(timeout time.Duration) (Transaction, error) {
	if c.tcClient == nil {
		return nil, ErrClientTransactionsNotEnabled
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%w: transaction timeout %v", ErrInvalidOptions, timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.OperationTimeout)
	defer cancel()
	t, err := c.tcClient.NewTxn(ctx, timeout)
	if err != nil {
		return nil, err
	}
	return transaction{t}, nil
}

// startTransactions connects to every transaction coordinator, as the
// official client does in NewClient when EnableTransaction is set. A
// cluster whose assign topic has no partitions has no coordinator:
// ErrTransactionCoordinatorNotEnabled.
func (c *client) startTransactions() error {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.OperationTimeout)
	defer cancel()
	var n int
	err := c.retry(ctx, func() error {
		var err error
		n, err = c.lookup.PartitionedMetadata(ctx, TransactionCoordinatorAssign)
		return err
	})
	if err != nil {
		return wrapErr("partitions of "+TransactionCoordinatorAssign, err)
	}
	c.tcClient, err = txn.Start(ctx, n, txn.Options{
		Connect: func(ctx context.Context, tc uint64) (txn.Conn, error) {
			cn, err := c.connFor(ctx, txn.AssignPartition(tc), c.nextID())
			if err != nil {
				return nil, err
			}
			return cn, nil
		},
		OperationTimeout: c.opts.OperationTimeout,
		Logger:           c.log,
	})
	if err != nil {
		return wrapErr("transactions", err)
	}
	return nil
}

// ownTxn returns the state machine of a Transaction of this package.
func ownTxn(t Transaction) (*txn.Txn, error) {
	ours, ok := t.(transaction)
	if !ok || ours.Txn == nil {
		return nil, fmt.Errorf("%w: %T is not a transaction of Client.NewTransaction", ErrTransaction, t)
	}
	return ours.Txn, nil
}
