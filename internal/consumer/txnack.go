package consumer

import (
	"context"
	"fmt"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// AckWithTxn acknowledges id (every chunk of a chunked message, one index
// of a batch) inside transaction txn: an individual ACK with the
// transaction's id and a request id, always waiting for the broker's
// response, as the official client's AckWithTxn. The message counts as
// acknowledged here at once (it is not redelivered on this connection
// even if the transaction aborts), as in the official client. The caller
// has registered the subscription with the transaction. A chunked
// message must have been delivered by this engine: its chunks are known
// only then.
func (e *Engine[T]) AckWithTxn(ctx context.Context, id messageid.MessageID, txn api.TxnID) error {
	var datas []*proto.MessageIdData
	var cn *conn.Conn
	var err error
	callErr := e.call(func() {
		if c, ok := id.(messageid.ChunkMessageID); ok && e.tracked[posOf(c.FirstChunkID())] == nil && !e.nonPersistent() {
			err = fmt.Errorf("%w: chunked message %v was not delivered by this consumer: its chunks cannot be acknowledged in a transaction",
				api.ErrInvalidOptions, id)
			return
		}
		datas, err = e.ackLocal(id)
		cn = e.cn
	})
	if callErr != nil {
		return callErr
	}
	if err != nil || len(datas) == 0 {
		return err
	}
	if cn == nil {
		return fmt.Errorf("ack with transaction: %w", api.ErrConnectionClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, e.o.OperationTimeout)
	defer cancel()
	rid := cn.NewRequestID()
	cmd := e.ackCmd(datas, proto.CommandAck_Individual, nil, &rid)
	cmd.Ack.TxnidMostBits, cmd.Ack.TxnidLeastBits = gproto.Uint64(txn.MostSigBits), gproto.Uint64(txn.LeastSigBits)
	if _, err := cn.Request(ctx, rid, cmd); err != nil {
		return fmt.Errorf("ack with transaction %v: %w", txn, err)
	}
	return nil
}
