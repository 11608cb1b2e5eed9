package brokerstub

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

func TestTxnDisabledRefusesCoordinator(t *testing.T) {
	b := RunT(t)
	c := dialTxn(t, b)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST.Enum(),
		TcClientConnectRequest: &proto.CommandTcClientConnectRequest{RequestId: gproto.Uint64(1), TcId: gproto.Uint64(0)}})
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, proto.ServerError_NotAllowedError, e.GetError())
	assert.Equal(t, "Transactions are not enabled.", e.GetMessage())
	// No coordinator is announced: the assign topic has no partitions.
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
		Topic: gproto.String(txn.AssignTopic), RequestId: gproto.Uint64(2)}})
	assert.Equal(t, uint32(0), c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE).GetPartitionMetadataResponse().GetPartitions())
	// A transactional send is refused too.
	name := c.producer("persistent://public/default/txn-off", 1)
	r := c.publish(1, name, 0, "x", &txn.ID{Most: 0, Least: 0})
	require.Equal(t, proto.BaseCommand_SEND_ERROR, r.GetType())
	assert.Equal(t, proto.ServerError_NotAllowedError, r.GetSendError().GetError())
}

func TestTxnCoordinatorConnect(t *testing.T) {
	b := RunT(t, txnOptions())
	c := dialTxn(t, b)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
		Topic: gproto.String(txn.AssignTopic), RequestId: c.nextRID()}})
	assert.Equal(t, uint32(1), c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE).GetPartitionMetadataResponse().GetPartitions())
	for tc, want := range map[uint64]*proto.ServerError{0: nil, 1: proto.ServerError_TransactionCoordinatorNotFound.Enum()} {
		c.Send(&proto.BaseCommand{Type: proto.BaseCommand_TC_CLIENT_CONNECT_REQUEST.Enum(),
			TcClientConnectRequest: &proto.CommandTcClientConnectRequest{RequestId: c.nextRID(), TcId: gproto.Uint64(tc)}})
		assert.Equal(t, want, c.expect(proto.BaseCommand_TC_CLIENT_CONNECT_RESPONSE).GetTcClientConnectResponse().Error, "tc %d", tc)
	}
	// Ids: coordinator 0 in the most significant bits, a sequence in the least.
	assert.Equal(t, txn.ID{Most: 0, Least: 0}, c.newTxn(60_000))
	assert.Equal(t, txn.ID{Most: 0, Least: 1}, c.newTxn(60_000))
}

func TestTxnMessagesVisibleOnlyAfterCommit(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-commit"
	name := pc.producer(topic, 1)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Exclusive, true)
	m0 := receiptOf(t, pc.publish(1, name, 0, "m0", nil))
	got, last := cc.received(1)
	assert.Equal(t, []string{"m0"}, got)
	assert.Equal(t, m0.GetEntryId(), last.GetEntryId())

	id := pc.newTxn(60_000)
	receiptOf(t, pc.publish(1, name, 1, "t1", &id))
	receiptOf(t, pc.publish(1, name, 2, "t2", &id))
	receiptOf(t, pc.publish(1, name, 3, "m3", nil)) // after the open transaction's first entry: waits
	got, last = cc.received(1)
	assert.Empty(t, got, "nothing after an open transaction's first message is dispatched")
	assert.Equal(t, m0.GetEntryId(), last.GetEntryId(), "GetLastMessageId reveals no uncommitted entry")

	r := pc.endTxn(id, true)
	require.Nil(t, r.Error, r.GetMessage())
	got, last = cc.received(1)
	assert.Equal(t, []string{"t1", "t2", "m3"}, got, "committed messages are visible in publish order")
	assert.Equal(t, m0.GetEntryId()+3, last.GetEntryId(), "the commit marker is not the last message")

	// The transaction is gone: a second commit finds nothing.
	assert.Equal(t, proto.ServerError_TransactionNotFound, pc.endTxn(id, true).GetError())
}

func TestTxnAbortedNeverDispatched(t *testing.T) {
	o := txnOptions()
	o.ActiveConsumerFailoverDelay = -1 // Failover dispatches at once
	b := RunT(t, o)
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-abort"
	name := pc.producer(topic, 1)
	types := []proto.CommandSubscribe_SubType{proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Shared,
		proto.CommandSubscribe_Failover, proto.CommandSubscribe_Key_Shared}
	for i, typ := range types {
		cc.subscribe(topic, typ.String(), uint64(i+1), typ, true)
	}
	id := pc.newTxn(60_000)
	receiptOf(t, pc.publish(1, name, 0, "aborted", &id))
	receiptOf(t, pc.publish(1, name, 1, "plain", nil))
	require.Nil(t, pc.endTxn(id, false).Error)
	// A reader (non-durable) joining later, from the earliest message.
	reader := uint64(len(types) + 1)
	cc.subscribe(topic, "reader", reader, proto.CommandSubscribe_Exclusive, false)
	for cid := uint64(1); cid <= reader; cid++ {
		got, _ := cc.received(cid)
		assert.Equal(t, []string{"plain"}, got, "consumer %d", cid)
	}
	// After a restart the buffer is rebuilt from the ledger: still hidden.
	require.NoError(t, b.Restart())
	cc = dialTxn(t, b)
	cc.subscribe(topic, "after-restart", 1, proto.CommandSubscribe_Exclusive, true)
	got, _ := cc.received(1)
	assert.Equal(t, []string{"plain"}, got)
}

func TestTxnBadInputGetsPulsarErrors(t *testing.T) {
	b := RunT(t, txnOptions())
	c := dialTxn(t, b)
	// END_TXN for a transaction that never existed, and for a forged
	// coordinator id.
	assert.Equal(t, proto.ServerError_TransactionNotFound, c.endTxn(txn.ID{Most: 0, Least: 999}, true).GetError())
	assert.Equal(t, proto.ServerError_TransactionCoordinatorNotFound, c.endTxn(txn.ID{Most: 7, Least: 0}, false).GetError())
	// A send in a forged transaction.
	name := c.producer("persistent://public/default/txn-bad", 1)
	r := c.publish(1, name, 0, "x", &txn.ID{Most: 0, Least: 12345})
	require.Equal(t, proto.BaseCommand_SEND_ERROR, r.GetType())
	assert.Equal(t, proto.ServerError_TransactionNotFound, r.GetSendError().GetError())
	// ADD_PARTITION for an ended transaction: it is removed once committed.
	id := c.newTxn(60_000)
	require.Nil(t, c.endTxn(id, true).Error)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN.Enum(), AddPartitionToTxn: &proto.CommandAddPartitionToTxn{
		RequestId: c.nextRID(), TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least, Partitions: []string{"persistent://public/default/p"}}})
	assert.Equal(t, proto.ServerError_TransactionNotFound,
		c.expect(proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE).GetAddPartitionToTxnResponse().GetError())
	// Non-persistent topics take no transactions, as Pulsar's.
	open := c.newTxn(60_000)
	npName := c.producer("non-persistent://public/default/txn-np", 2)
	r = c.publish(2, npName, 0, "x", &open)
	require.Equal(t, proto.BaseCommand_SEND_ERROR, r.GetType())
	assert.Equal(t, proto.ServerError_NotAllowedError, r.GetSendError().GetError())
	// The broker keeps serving.
	receiptOf(t, c.publish(1, name, 1, "ok", nil))
}

func TestTxnWrongStateGetsInvalidTxnStatus(t *testing.T) {
	b := RunT(t, txnOptions())
	c, other := dialTxn(t, b), dialTxn(t, b)
	id := c.newTxn(60_000)
	tc := b.eng.TxnCoordinator()
	inPhaseTwo, release := make(chan struct{}), make(chan struct{})
	tc.SetBeforePhaseTwo(func(txn.ID) bool { close(inPhaseTwo); <-release; return true })
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_END_TXN.Enum(), EndTxn: &proto.CommandEndTxn{
		RequestId: c.nextRID(), TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least, TxnAction: proto.TxnAction_COMMIT.Enum()}})
	<-inPhaseTwo
	// Committing: no more partitions, and no abort.
	other.Send(&proto.BaseCommand{Type: proto.BaseCommand_ADD_PARTITION_TO_TXN.Enum(), AddPartitionToTxn: &proto.CommandAddPartitionToTxn{
		RequestId: other.nextRID(), TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least, Partitions: []string{"persistent://public/default/p"}}})
	assert.Equal(t, proto.ServerError_InvalidTxnStatus,
		other.expect(proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE).GetAddPartitionToTxnResponse().GetError())
	assert.Equal(t, proto.ServerError_InvalidTxnStatus, other.endTxn(id, false).GetError())
	close(release)
	assert.Nil(t, c.expect(proto.BaseCommand_END_TXN_RESPONSE).GetEndTxnResponse().Error)
}

func TestTxnTimeoutAborts(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	o := txnOptions()
	o.Clock = clk
	b := RunT(t, o)
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-timeout"
	name := pc.producer(topic, 1)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Exclusive, true)
	id := pc.newTxn(5_000)
	receiptOf(t, pc.publish(1, name, 0, "late", &id))
	receiptOf(t, pc.publish(1, name, 1, "plain", nil))
	clk.Advance(4 * time.Second)
	got, _ := cc.received(1)
	assert.Empty(t, got, "open until its timeout")
	clk.Advance(time.Second)
	got, _ = cc.received(1)
	assert.Equal(t, []string{"plain"}, got, "aborted at its timeout")
	assert.Equal(t, proto.ServerError_TransactionNotFound, pc.endTxn(id, true).GetError())
}

func TestTxnCrashBetweenPhasesCommits(t *testing.T) {
	clk := NewFakeClock(time.Unix(1_700_000_000, 0))
	o := txnOptions()
	o.Clock, o.DataDir = clk, t.TempDir()
	b := RunT(t, o)
	pc := dialTxn(t, b)
	topic := "persistent://public/default/txn-crash"
	name := pc.producer(topic, 1)
	committing, open := pc.newTxn(60_000), pc.newTxn(60_000)
	receiptOf(t, pc.publish(1, name, 0, "committed", &committing))
	receiptOf(t, pc.publish(1, name, 1, "open", &open))
	receiptOf(t, pc.publish(1, name, 2, "plain", nil))
	tc := b.eng.TxnCoordinator()
	tc.SetBeforePhaseTwo(func(txn.ID) bool { return false }) // the broker dies here
	assert.Equal(t, proto.ServerError_ServiceNotReady, pc.endTxn(committing, true).GetError())

	require.NoError(t, b.Crash())
	cc := dialTxn(t, b)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Exclusive, true)
	// The decided commit finishes after the restart; the open transaction
	// holds back what follows it until its timeout aborts it.
	got, _ := cc.received(1)
	assert.Equal(t, []string{"committed"}, got)
	clk.Advance(time.Minute)
	got, _ = cc.received(1)
	assert.Equal(t, []string{"plain"}, got)
}

func TestTxnAdminMetadata(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, cc := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-admin"
	name := pc.producer(topic, 1)
	cc.subscribe(topic, "s", 1, proto.CommandSubscribe_Exclusive, true)
	m0 := receiptOf(t, pc.publish(1, name, 0, "m0", nil))
	cc.received(1)
	id := pc.newTxn(30_000)
	first := receiptOf(t, pc.publish(1, name, 1, "t", &id))
	require.Nil(t, cc.ack(1, m0, &id).Error)

	code, body := adminDo(t, b, "GET", "/admin/v3/transactions/transactionMetadata/0/"+strconv.FormatUint(id.Least, 10), "")
	require.Equal(t, 200, code, body)
	var md map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &md))
	assert.Equal(t, "(0,0)", md["txnId"])
	assert.Equal(t, "OPEN", md["status"])
	assert.Equal(t, float64(30_000), md["timeoutAt"])
	assert.Equal(t, map[string]any{topic: map[string]any{
		"startPosition": fmt.Sprintf("%d:%d", first.GetLedgerId(), first.GetEntryId()), "aborted": false}}, md["producedPartitions"])
	assert.Equal(t, map[string]any{topic: map[string]any{"s": map[string]any{"cumulativeAckPosition": nil}}}, md["ackedPartitions"])

	require.Nil(t, pc.endTxn(id, true).Error)
	code, _ = adminDo(t, b, "GET", "/admin/v3/transactions/transactionMetadata/0/0", "")
	assert.Equal(t, 404, code, "an ended transaction is removed")

	off := RunT(t)
	code, _ = adminDo(t, off, "GET", "/admin/v3/transactions/transactionMetadata/0/0", "")
	assert.Equal(t, 503, code)
}

func TestTxnConfigKey(t *testing.T) {
	for conf, want := range map[string]bool{"": false, "transactionCoordinatorEnabled=true\n": true, "transactionCoordinatorEnabled=false\n": false} {
		cfg, err := ParseConfig(strings.NewReader(conf))
		require.NoError(t, err)
		assert.Equal(t, want, cfg.Options.TransactionCoordinatorEnabled, "%q", conf)
		assert.NotContains(t, cfg.Ignored, "transactionCoordinatorEnabled")
	}
	_, err := ParseConfig(strings.NewReader("transactionCoordinatorEnabled=maybe\n"))
	assert.Error(t, err)
}
