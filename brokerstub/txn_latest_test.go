package brokerstub

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// subscribeLatest attaches a durable Exclusive consumer cid to a new
// subscription at Latest, with permits.
func (c *txnClient) subscribeLatest(topic, sub string, cid uint64) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: proto.CommandSubscribe_Exclusive.Enum(), ConsumerId: &cid,
		RequestId: c.nextRID(), Durable: gproto.Bool(true), InitialPosition: proto.CommandSubscribe_Latest.Enum()}})
	c.untilSuccess()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: &cid, MessagePermits: gproto.Uint32(1000)}})
}

// A new subscription at Latest while a transaction is open starts, as
// Pulsar's managed ledger opens a cursor at Latest, at the last entry
// stored (the last confirmed entry), uncommitted ones included: the open
// transaction's messages are before it and never reach it, also once
// committed. What is published after the subscription waits behind the
// max-read position like everything else, and comes after the commit. An
// Earliest subscription gets both.
func TestTxnLatestSubscriptionStartsAfterOpenTxnEntries(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-latest"
	name := pc.producer(topic, 1)
	tx := pc.newTxn(60_000)
	receiptOf(t, pc.publish(1, name, 0, "in-txn", &tx))

	cc.subscribeLatest(topic, "latest", 1)
	cur, _, err := b.Cursor(topic, "latest")
	require.NoError(t, err)
	assert.Equal(t, int64(0), cur.MarkDelete.Entry, "the cursor starts at the last stored entry, the uncommitted one")
	receiptOf(t, pc.publish(1, name, 1, "after", nil))
	got, _ := cc.received(1)
	assert.Empty(t, got, "held behind the open transaction (max-read position)")

	require.Nil(t, pc.endTxn(tx, true).Error)
	got, _ = cc.received(1)
	assert.Equal(t, []string{"after"}, got, "the committed message is before the subscription's start")

	cc.subscribe(topic, "earliest", 2, proto.CommandSubscribe_Exclusive, true)
	got, _ = cc.received(2)
	assert.Equal(t, []string{"in-txn", "after"}, got)
}
