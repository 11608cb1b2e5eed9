package brokerstub

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

func TestTxnAckHeldUntilCommit(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-ack"
	name := pc.producer(topic, 1)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Shared, true)
	var ids []*proto.MessageIdData
	for i := range 3 {
		ids = append(ids, receiptOf(t, pc.publish(1, name, uint64(i), "m", nil)))
	}
	got, _ := cc.received(1)
	require.Len(t, got, 3)

	t1, t2 := pc.newTxn(60_000), pc.newTxn(60_000)
	r := cc.ack(1, ids[0], &t1)
	require.Nil(t, r.Error, r.GetMessage())
	assert.Equal(t, t1.Most, r.GetTxnidMostBits())
	assert.Equal(t, t1.Least, r.GetTxnidLeastBits())
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, int64(-1), cur.MarkDelete.Entry, "a transactional ack is pending, not applied")

	// The same message in another open transaction conflicts.
	r = cc.ack(1, ids[0], &t2)
	assert.Equal(t, proto.ServerError_TransactionConflict, r.GetError())
	assert.Equal(t, t2.Least, r.GetTxnidLeastBits())
	// So does a message already acknowledged.
	require.Nil(t, cc.ack(1, ids[2], nil).Error)
	assert.Equal(t, proto.ServerError_TransactionConflict, cc.ack(1, ids[2], &t2).GetError())

	// t2 acks m1 and aborts: dropped, and m1 is delivered again.
	require.Nil(t, cc.ack(1, ids[1], &t2).Error)
	require.Nil(t, pc.endTxn(t2, false).Error)
	got, _ = cc.received(1)
	assert.Len(t, got, 1, "the aborted ack's message is redelivered")

	require.Nil(t, pc.endTxn(t1, true).Error)
	cur, _, err = b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, ids[0].GetEntryId(), uint64(cur.MarkDelete.Entry), "the committed ack is applied")
}

func TestTxnPendingAcksSurviveRestart(t *testing.T) {
	b := RunT(t, Options{TransactionCoordinatorEnabled: true, DataDir: t.TempDir()})
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-ack-restart"
	name := pc.producer(topic, 1)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Shared, true)
	m0 := receiptOf(t, pc.publish(1, name, 0, "m0", nil))
	cc.received(1)
	t1 := pc.newTxn(60_000)
	require.Nil(t, cc.ack(1, m0, &t1).Error)

	require.NoError(t, b.Restart())
	pc, cc = dialTxn(t, b), dialTxn(t, b)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Shared, true)
	cc.received(1)
	t2 := pc.newTxn(60_000)
	assert.Equal(t, txn.ID{Most: 0, Least: 1}, t2, "the sequence continues after a restart")
	assert.Equal(t, proto.ServerError_TransactionConflict, cc.ack(1, m0, &t2).GetError(), "t1's ack is still pending")
	require.Nil(t, pc.endTxn(t1, true).Error)
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, m0.GetEntryId(), uint64(cur.MarkDelete.Entry))
}

func TestTxnCumulativeAck(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-cumulative"
	name := pc.producer(topic, 1)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Exclusive, true)
	var ids []*proto.MessageIdData
	for i := range 3 {
		ids = append(ids, receiptOf(t, pc.publish(1, name, uint64(i), "m", nil)))
	}
	cc.received(1)
	cumulative := func(id *proto.MessageIdData, tx txn.ID) *proto.CommandAckResponse {
		cc.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{ConsumerId: gproto.Uint64(1),
			AckType: proto.CommandAck_Cumulative.Enum(), RequestId: cc.nextRID(),
			MessageId:     []*proto.MessageIdData{{LedgerId: id.LedgerId, EntryId: id.EntryId}},
			TxnidMostBits: &tx.Most, TxnidLeastBits: &tx.Least}})
		return cc.expect(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
	}
	t1, t2 := pc.newTxn(60_000), pc.newTxn(60_000)
	require.Nil(t, cumulative(ids[1], t1).Error)
	// Under t1's cumulative ack: another transaction's ack conflicts.
	assert.Equal(t, proto.ServerError_TransactionConflict, cc.ack(1, ids[0], &t2).GetError())
	assert.Equal(t, proto.ServerError_TransactionConflict, cumulative(ids[2], t2).GetError())
	cur, _, err := b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, int64(-1), cur.MarkDelete.Entry)
	require.Nil(t, pc.endTxn(t1, true).Error)
	cur, _, err = b.Cursor(topic, "s")
	require.NoError(t, err)
	assert.Equal(t, ids[1].GetEntryId(), uint64(cur.MarkDelete.Entry))
	// Below the mark-delete position now: already acknowledged.
	assert.Equal(t, proto.ServerError_TransactionConflict, cumulative(ids[0], t2).GetError())
}
