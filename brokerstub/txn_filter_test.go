package brokerstub

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// closeConsumer closes consumer cid and waits for the broker's answer,
// keeping the messages read meanwhile.
func (c *txnClient) closeConsumer(cid uint64) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(), CloseConsumer: &proto.CommandCloseConsumer{
		ConsumerId: &cid, RequestId: c.nextRID()}})
	c.untilSuccess()
}

// untilSuccess reads up to a SUCCESS, keeping the MESSAGEs read meanwhile.
func (c *txnClient) untilSuccess() {
	c.t.Helper()
	for {
		f, err := c.next()
		require.NoError(c.t, err)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SUCCESS:
			return
		case proto.BaseCommand_MESSAGE:
			m := f.Cmd.GetMessage()
			c.seen[m.GetConsumerId()] = append(c.seen[m.GetConsumerId()], string(f.Payload))
		case proto.BaseCommand_PING, proto.BaseCommand_ACTIVE_CONSUMER_CHANGE:
		default:
			c.t.Fatalf("waiting for SUCCESS: got %s", f.Cmd)
		}
	}
}

// redeliverAll asks for everything consumer cid holds to be delivered again.
func (c *txnClient) redeliverAll(cid uint64) {
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(),
		RedeliverUnacknowledgedMessages: &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: &cid}})
}

var allSubTypes = []proto.CommandSubscribe_SubType{proto.CommandSubscribe_Exclusive, proto.CommandSubscribe_Failover,
	proto.CommandSubscribe_Shared, proto.CommandSubscribe_Key_Shared}

// A message acknowledged in an open transaction is not redelivered when the
// consumer that held it leaves; the abort makes it deliverable again, and
// it reaches the consumer that is left although nobody held it any more.
func TestTxnPendingAckNotRedeliveredOnClose(t *testing.T) {
	for _, typ := range allSubTypes {
		t.Run(typ.String(), func(t *testing.T) {
			b := RunT(t, Options{TransactionCoordinatorEnabled: true, ActiveConsumerFailoverDelay: -1})
			pc, c1, c2 := dialTxn(t, b), dialTxn(t, b), dialTxn(t, b)
			topic := "persistent://public/default/txn-filter-close"
			name := pc.producer(topic, 1)
			m0 := receiptOf(t, pc.publish(1, name, 0, "m0", nil))
			receiptOf(t, pc.publish(1, name, 1, "m1", nil))
			c1.subscribe(topic, "s", 1, typ, true)
			got, _ := c1.received(1)
			require.Equal(t, []string{"m0", "m1"}, got)

			tx := pc.newTxn(60_000)
			require.Nil(t, c1.ack(1, m0, &tx).Error)
			if typ != proto.CommandSubscribe_Exclusive {
				c2.subscribe(topic, "s", 2, typ, true)
			}
			c1.closeConsumer(1)
			if typ == proto.CommandSubscribe_Exclusive {
				c2.subscribe(topic, "s", 2, typ, true)
			}
			got, _ = c2.received(2)
			assert.Equal(t, []string{"m1"}, got, "m0 is pending in an open transaction")

			require.Nil(t, pc.endTxn(tx, false).Error)
			got, _ = c2.received(2)
			assert.Equal(t, []string{"m0"}, got, "the abort makes m0 deliverable again")
		})
	}
}

// The same on a redelivery the consumer asks for, and after the last
// consumer left (the subscription rewinds and reads again); a commit then
// acknowledges what was pending.
func TestTxnPendingAckNotRedeliveredOnRedeliver(t *testing.T) {
	for _, typ := range allSubTypes {
		t.Run(typ.String(), func(t *testing.T) {
			b := RunT(t, Options{TransactionCoordinatorEnabled: true, ActiveConsumerFailoverDelay: -1})
			pc, c1 := dialTxn(t, b), dialTxn(t, b)
			topic := "persistent://public/default/txn-filter-redeliver"
			name := pc.producer(topic, 1)
			m0 := receiptOf(t, pc.publish(1, name, 0, "m0", nil))
			m1 := receiptOf(t, pc.publish(1, name, 1, "m1", nil))
			c1.subscribe(topic, "s", 1, typ, true)
			c1.received(1)

			tx := pc.newTxn(60_000)
			require.Nil(t, c1.ack(1, m1, &tx).Error)
			c1.redeliverAll(1)
			got, _ := c1.received(1)
			assert.Equal(t, []string{"m0"}, got, "m1 is pending in an open transaction")

			c1.closeConsumer(1)
			c1.subscribe(topic, "s", 2, typ, true)
			got, _ = c1.received(2)
			assert.Equal(t, []string{"m0"}, got, "read again from the mark-delete position: m1 still passed over")

			require.Nil(t, pc.endTxn(tx, true).Error)
			require.Nil(t, c1.ack(2, m0, nil).Error)
			cur, _, err := b.Cursor(topic, "s")
			require.NoError(t, err)
			assert.Equal(t, m1.GetEntryId(), uint64(cur.MarkDelete.Entry), "the commit acknowledged m1")
			c1.redeliverAll(2)
			got, _ = c1.received(2)
			assert.Empty(t, got)
		})
	}
}

// A batch with some indexes pending in a transaction is redelivered with
// those indexes marked acknowledged; a batch wholly pending is passed over.
func TestTxnPendingBatchIndexAckFiltered(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, c1 := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-filter-batch"
	name := pc.producer(topic, 1)
	var ids []*proto.MessageIdData
	for i := range 2 {
		ids = append(ids, receiptOf(t, pc.publishBatch(1, name, uint64(i), 3)))
	}
	c1.subscribe(topic, "s", 1, proto.CommandSubscribe_Shared, true)
	c1.received(1)

	tx := pc.newTxn(60_000)
	ackBatch := func(id *proto.MessageIdData, set int64) {
		m := &proto.CommandAck{ConsumerId: gproto.Uint64(1), AckType: proto.CommandAck_Individual.Enum(), RequestId: c1.nextRID(),
			MessageId:     []*proto.MessageIdData{{LedgerId: id.LedgerId, EntryId: id.EntryId, AckSet: []int64{set}}},
			TxnidMostBits: &tx.Most, TxnidLeastBits: &tx.Least}
		c1.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: m})
		r := c1.expect(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
		require.Nil(t, r.Error, r.GetMessage())
	}
	ackBatch(ids[0], 0b110) // index 0 of the first batch
	ackBatch(ids[1], 0b000) // all of the second
	c1.redeliverAll(1)
	msgs := c1.messages(1)
	require.Len(t, msgs, 1, "the second batch is wholly pending")
	assert.Equal(t, ids[0].GetEntryId(), msgs[0].GetMessageId().GetEntryId())
	assert.Equal(t, []int64{0b110}, msgs[0].GetAckSet(), "index 0 is pending: marked acknowledged")

	require.Nil(t, pc.endTxn(tx, false).Error)
	msgs = c1.messages(1)
	require.Len(t, msgs, 2, "the abort redelivers both: the one the consumer held and the one nobody held")
	for _, m := range msgs {
		assert.Nil(t, m.GetAckSet(), "nothing of either batch is acknowledged")
	}
}

// publishBatch sends one batch entry of n messages as producer pid.
func (c *txnClient) publishBatch(pid uint64, name string, seq uint64, n int) *proto.BaseCommand {
	c.t.Helper()
	var payload []byte
	for range n {
		smd, err := gproto.Marshal(&proto.SingleMessageMetadata{PayloadSize: gproto.Int32(1)})
		require.NoError(c.t, err)
		payload = append(payload, 0, 0, 0, byte(len(smd)))
		payload = append(payload, smd...)
		payload = append(payload, 'x')
	}
	nb := int32(n)
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: &pid, SequenceId: &seq, NumMessages: &nb}},
		&proto.MessageMetadata{ProducerName: &name, SequenceId: &seq, PublishTime: gproto.Uint64(1), NumMessagesInBatch: &nb}, payload)
	return c.sendAnswer()
}

// messages reads frames up to the answer of a GET_LAST_MESSAGE_ID for
// consumer cid and returns the MESSAGE commands for it read before.
func (c *txnClient) messages(cid uint64) []*proto.CommandMessage {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID.Enum(), GetLastMessageId: &proto.CommandGetLastMessageId{
		ConsumerId: &cid, RequestId: c.nextRID()}})
	var got []*proto.CommandMessage
	for {
		f, err := c.next()
		require.NoError(c.t, err)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_MESSAGE:
			if m := f.Cmd.GetMessage(); m.GetConsumerId() == cid {
				got = append(got, m)
			}
		case proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE:
			return got
		case proto.BaseCommand_PING, proto.BaseCommand_ACTIVE_CONSUMER_CHANGE:
		default:
			c.t.Fatalf("waiting for messages: got %s", f.Cmd)
		}
	}
}

// The abort of a pending cumulative ack redelivers everything the consumer
// holds, as Pulsar's abort rewinds the single active consumer; messages
// under a pending cumulative ack are not passed over (Pulsar filters
// individual pending acks only).
func TestTxnAbortedCumulativeAckRedelivers(t *testing.T) {
	b := RunT(t, Options{TransactionCoordinatorEnabled: true, ActiveConsumerFailoverDelay: -1})
	pc, c1 := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-filter-cumulative"
	name := pc.producer(topic, 1)
	var ids []*proto.MessageIdData
	for i := range 3 {
		ids = append(ids, receiptOf(t, pc.publish(1, name, uint64(i), "m"+string(rune('0'+i)), nil)))
	}
	c1.subscribe(topic, "s", 1, proto.CommandSubscribe_Failover, true)
	got, _ := c1.received(1)
	require.Len(t, got, 3)
	tx := pc.newTxn(60_000)
	c1.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{ConsumerId: gproto.Uint64(1),
		AckType: proto.CommandAck_Cumulative.Enum(), RequestId: c1.nextRID(),
		MessageId:     []*proto.MessageIdData{{LedgerId: ids[1].LedgerId, EntryId: ids[1].EntryId}},
		TxnidMostBits: &tx.Most, TxnidLeastBits: &tx.Least}})
	require.Nil(t, c1.expect(proto.BaseCommand_ACK_RESPONSE).GetAckResponse().Error)
	c1.redeliverAll(1)
	got, _ = c1.received(1)
	assert.Equal(t, []string{"m0", "m1", "m2"}, got, "a pending cumulative ack filters nothing")

	require.Nil(t, pc.endTxn(tx, false).Error)
	got, _ = c1.received(1)
	assert.Equal(t, []string{"m0", "m1", "m2"}, got, "the abort redelivers what the consumer holds")
}

// Two transactions may hold disjoint indexes of one batch pending, as in
// Pulsar; an index pending in one conflicts in the other. The batch is
// redelivered with every pending index marked acknowledged, and the commit
// of one and abort of the other leave the committed indexes acknowledged.
func TestTxnDisjointBatchIndexesInTwoTxns(t *testing.T) {
	b := RunT(t, txnOptions())
	pc, c1 := dialTxn(t, b), dialTxn(t, b)
	topic := "persistent://public/default/txn-filter-disjoint"
	name := pc.producer(topic, 1)
	id := receiptOf(t, pc.publishBatch(1, name, 0, 3))
	c1.subscribe(topic, "s", 1, proto.CommandSubscribe_Shared, true)
	c1.received(1)

	ackBatch := func(tx txn.ID, set int64) *proto.CommandAckResponse {
		m := &proto.CommandAck{ConsumerId: gproto.Uint64(1), AckType: proto.CommandAck_Individual.Enum(), RequestId: c1.nextRID(),
			MessageId:     []*proto.MessageIdData{{LedgerId: id.LedgerId, EntryId: id.EntryId, AckSet: []int64{set}}},
			TxnidMostBits: &tx.Most, TxnidLeastBits: &tx.Least}
		c1.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: m})
		return c1.expect(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
	}
	t1, t2 := pc.newTxn(60_000), pc.newTxn(60_000)
	require.Nil(t, ackBatch(t1, 0b110).Error, "t1 holds index 0")
	r := ackBatch(t2, 0b101)
	require.Nil(t, r.Error, "t2 may hold index 1: %s", r.GetMessage())
	assert.Equal(t, proto.ServerError_TransactionConflict, ackBatch(t2, 0b110).GetError(), "index 0 is pending in t1")

	c1.redeliverAll(1)
	msgs := c1.messages(1)
	require.Len(t, msgs, 1)
	assert.Equal(t, []int64{0b100}, msgs[0].GetAckSet(), "only index 2 is deliverable")

	require.Nil(t, pc.endTxn(t1, true).Error)
	require.Nil(t, pc.endTxn(t2, false).Error)
	msgs = c1.messages(1)
	require.Len(t, msgs, 1, "the abort redelivers the batch")
	assert.Equal(t, []int64{0b110}, msgs[0].GetAckSet(), "t1's index 0 is acknowledged; t2's index 1 is not")
}
