package brokerstub

import (
	"testing"

	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/brokerstub/internal/txn"
	"github.com/pulsargo/sdk/internal/proto"
)

// txnClient is a raw client with the requests of the transaction tests.
type txnClient struct {
	*rawClient
	rid  uint64
	seen map[uint64][]string // payloads of MESSAGEs read while waiting for something else
}

func dialTxn(t *testing.T, b *Broker) *txnClient {
	t.Helper()
	c := &txnClient{rawClient: dialRaw(t, b), seen: map[uint64][]string{}}
	c.connect()
	return c
}

func (c *txnClient) nextRID() *uint64 { c.rid++; return gproto.Uint64(c.rid) }

func (c *txnClient) newTxn(ttlMs uint64) txn.ID {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_NEW_TXN.Enum(), NewTxn: &proto.CommandNewTxn{
		RequestId: c.nextRID(), TxnTtlSeconds: &ttlMs, TcId: gproto.Uint64(0)}})
	r := c.expect(proto.BaseCommand_NEW_TXN_RESPONSE).GetNewTxnResponse()
	require.Nil(c.t, r.Error, r.GetMessage())
	return txn.ID{Most: r.GetTxnidMostBits(), Least: r.GetTxnidLeastBits()}
}

func (c *txnClient) endTxn(id txn.ID, commit bool) *proto.CommandEndTxnResponse {
	c.t.Helper()
	action := proto.TxnAction_ABORT
	if commit {
		action = proto.TxnAction_COMMIT
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_END_TXN.Enum(), EndTxn: &proto.CommandEndTxn{
		RequestId: c.nextRID(), TxnidMostBits: &id.Most, TxnidLeastBits: &id.Least, TxnAction: &action}})
	return c.expect(proto.BaseCommand_END_TXN_RESPONSE).GetEndTxnResponse()
}

func (c *txnClient) producer(topic string, pid uint64) string {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: &pid, RequestId: c.nextRID()}})
	return c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
}

// publish sends payload as producer pid (named name), in transaction tx when not nil,
// and returns the answer (SEND_RECEIPT or SEND_ERROR).
func (c *txnClient) publish(pid uint64, name string, seq uint64, payload string, tx *txn.ID) *proto.BaseCommand {
	c.t.Helper()
	s := &proto.CommandSend{ProducerId: &pid, SequenceId: &seq}
	if tx != nil {
		s.TxnidMostBits, s.TxnidLeastBits = &tx.Most, &tx.Least
	}
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: s},
		&proto.MessageMetadata{ProducerName: &name, SequenceId: &seq, PublishTime: gproto.Uint64(1)}, []byte(payload))
	return c.sendAnswer()
}

// sendAnswer reads frames up to the answer of a SEND (SEND_RECEIPT or
// SEND_ERROR) and returns it.
func (c *txnClient) sendAnswer() *proto.BaseCommand {
	c.t.Helper()
	for {
		f, err := c.next()
		require.NoError(c.t, err)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_SEND_RECEIPT, proto.BaseCommand_SEND_ERROR:
			return f.Cmd
		case proto.BaseCommand_PING:
		default:
			c.t.Fatalf("waiting for the answer to a send: got %s", f.Cmd)
		}
	}
}

func (c *txnClient) subscribe(topic, sub string, cid uint64, typ proto.CommandSubscribe_SubType, durable bool) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: &sub, SubType: typ.Enum(), ConsumerId: &cid, RequestId: c.nextRID(),
		Durable: &durable, InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	for {
		f, err := c.next()
		require.NoError(c.t, err)
		if f.Cmd.GetType() == proto.BaseCommand_SUCCESS {
			break
		}
		if m := f.Cmd.GetMessage(); m != nil {
			c.seen[m.GetConsumerId()] = append(c.seen[m.GetConsumerId()], string(f.Payload))
		}
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: &cid, MessagePermits: gproto.Uint32(1000)}})
}

// received reads frames up to the answer of a GET_LAST_MESSAGE_ID for
// consumer cid, which the topic writes after every MESSAGE it dispatched
// before: it returns the payloads of those messages and the last id.
func (c *txnClient) received(cid uint64) ([]string, *proto.MessageIdData) {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID.Enum(), GetLastMessageId: &proto.CommandGetLastMessageId{
		ConsumerId: &cid, RequestId: c.nextRID()}})
	got := c.seen[cid]
	delete(c.seen, cid)
	for {
		f, err := c.next()
		require.NoError(c.t, err)
		switch f.Cmd.GetType() {
		case proto.BaseCommand_MESSAGE:
			if m := f.Cmd.GetMessage(); m.GetConsumerId() == cid {
				got = append(got, string(f.Payload))
			} else {
				c.seen[m.GetConsumerId()] = append(c.seen[m.GetConsumerId()], string(f.Payload))
			}
		case proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE:
			return got, f.Cmd.GetGetLastMessageIdResponse().GetLastMessageId()
		case proto.BaseCommand_PING, proto.BaseCommand_ACTIVE_CONSUMER_CHANGE:
		default:
			c.t.Fatalf("waiting for messages: got %s", f.Cmd)
		}
	}
}

// ack acknowledges id individually for consumer cid, in transaction tx when not nil,
// and returns the ACK_RESPONSE.
func (c *txnClient) ack(cid uint64, id *proto.MessageIdData, tx *txn.ID) *proto.CommandAckResponse {
	c.t.Helper()
	m := &proto.CommandAck{ConsumerId: &cid, AckType: proto.CommandAck_Individual.Enum(),
		MessageId: []*proto.MessageIdData{{LedgerId: id.LedgerId, EntryId: id.EntryId}}, RequestId: c.nextRID()}
	if tx != nil {
		m.TxnidMostBits, m.TxnidLeastBits = &tx.Most, &tx.Least
	}
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: m})
	return c.expect(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
}

func receiptOf(t *testing.T, cmd *proto.BaseCommand) *proto.MessageIdData {
	t.Helper()
	require.Equal(t, proto.BaseCommand_SEND_RECEIPT, cmd.GetType(), "%s", cmd)
	return cmd.GetSendReceipt().GetMessageId()
}

func txnOptions() Options { return Options{TransactionCoordinatorEnabled: true} }
