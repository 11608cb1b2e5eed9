package pulsar

import (
	"context"
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/producer"
	"github.com/pulsargo/sdk/messageid"
)

// errNonOpenSend is the official client's error for a send in a
// transaction that is not open (it wraps ErrTransaction).
var errNonOpenSend = errors.New("failed to send message by a non-open transaction")

// txnSend prepares the send of msg to topic (a partition) in its
// transaction, as the official client's prepareTransaction: the
// transaction must be open, the partition is registered with it before its
// first send (ADD_PARTITION_TO_TXN), and the send is counted in flight
// until end is called with its outcome. Without a transaction end is nil.
// Errors wrap ErrTransaction.
func txnSend(ctx context.Context, msg *ProducerMessage, topic string) (end func(error), err error) {
	if msg.Transaction == nil {
		return nil, nil
	}
	t, err := ownTxn(msg.Transaction)
	if err != nil {
		return nil, err
	}
	if t.GetState() != api.TxnOpen {
		return nil, fmt.Errorf("%w: %w", ErrTransaction, errNonOpenSend)
	}
	if err := t.RegisterPartition(ctx, topic); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTransaction, err)
	}
	if err := t.BeginOp(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTransaction, err)
	}
	return t.EndOp, nil
}

// sendIn sends m on pp, in its transaction when end is not nil (then end
// gets the outcome, also after ctx ended).
func sendIn(ctx context.Context, pp *producer.Producer, m *producer.Message, version []byte, end func(error)) (MessageID, error) {
	if end == nil {
		return pp.SendVersioned(ctx, m, version)
	}
	return pp.SendVersionedNotify(ctx, m, version, func(_ messageid.MessageID, err error) { end(err) })
}

// AckWithTxn acknowledges msg inside txn, as the official client: the
// transaction must be open (else InvalidStatus, "Failed to ack by a
// non-open transaction."), the subscription is registered with it before
// its first ack there (ADD_SUBSCRIPTION_TO_TXN), and the ACK carries the
// transaction's id and waits for the broker's response. The ack takes
// effect when the transaction commits; the message is not redelivered to
// this consumer meanwhile (nor after an abort, until the consumer
// reconnects or redelivery is asked for), as in the official client.
func (cs *consumerImpl) AckWithTxn(msg Message, txn Transaction) error {
	e, id, err := cs.engineOf(msg)
	if err != nil {
		return err
	}
	t, err := ownTxn(txn)
	if err != nil {
		return err
	}
	if t.GetState() != api.TxnOpen {
		return newError(InvalidStatus, "Failed to ack by a non-open transaction.")
	}
	ctx, cancel := context.WithTimeout(context.Background(), cs.c.opts.OperationTimeout)
	defer cancel()
	if err := t.RegisterSubscription(ctx, e.Topic(), cs.opts.SubscriptionName); err != nil {
		return err
	}
	if err := t.BeginOp(); err != nil {
		return err
	}
	err = e.AckWithTxn(ctx, id, t.GetTxnID())
	t.EndOp(err)
	return cs.acked(id, consumerErr("ack with transaction", err))
}
