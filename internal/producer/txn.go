package producer

import (
	"context"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// txnOf returns the id of m's transaction, nil when it has none.
func txnOf(m *Message) *api.TxnID { return m.Txn }

// sameTxn reports whether a and b name the same transaction (or both none):
// a batch holds the messages of one transaction only, as the Java client's
// batch container (the broker takes the transaction of a batch from its
// SEND).
func sameTxn(a, b *api.TxnID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// setSendTxn puts the transaction's id in a SEND (every chunk's of a
// chunked message).
func setSendTxn(send *proto.CommandSend, id *api.TxnID) {
	if id != nil {
		send.TxnidMostBits, send.TxnidLeastBits = gproto.Uint64(id.MostSigBits), gproto.Uint64(id.LeastSigBits)
	}
}

// setMetaTxn puts the transaction's id in an entry's metadata, as the Java
// client does.
func setMetaTxn(md *proto.MessageMetadata, id *api.TxnID) {
	if id != nil {
		md.TxnidMostBits, md.TxnidLeastBits = gproto.Uint64(id.MostSigBits), gproto.Uint64(id.LeastSigBits)
	}
}

// SendVersionedNotify is SendVersioned that also calls done with the
// outcome once the producer knows it, whether or not ctx ended before: the
// end of a transaction's send operation.
func (p *Producer) SendVersionedNotify(ctx context.Context, m *Message, schemaVersion []byte, done Callback) (messageid.MessageID, error) {
	type result struct {
		id  messageid.MessageID
		err error
	}
	ch := make(chan result, 1)
	p.send(ctx, m, schemaVersion, pending{cb: func(id messageid.MessageID, err error) {
		done(id, err)
		ch <- result{id, err}
	}}, true)
	select {
	case r := <-ch:
		return r.id, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
