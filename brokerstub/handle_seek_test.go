package brokerstub

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// rawReader subscribes consumerID as a reader does: non-durable, Exclusive,
// from the earliest message.
func rawReader(t *testing.T, c *rawClient, topic string, consumerID uint64) {
	t.Helper()
	earliest := ^uint64(0)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("reader"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: &consumerID, RequestId: gproto.Uint64(300 + consumerID), Durable: gproto.Bool(false),
		StartMessageId: &proto.MessageIdData{LedgerId: &earliest, EntryId: &earliest}}})
	c.expect(proto.BaseCommand_SUCCESS)
}

func getLastMessageID(c *rawClient, consumerID, rid uint64) *proto.CommandGetLastMessageIdResponse {
	c.t.Helper()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_LAST_MESSAGE_ID.Enum(), GetLastMessageId: &proto.CommandGetLastMessageId{
		ConsumerId: &consumerID, RequestId: &rid}})
	return c.expect(proto.BaseCommand_GET_LAST_MESSAGE_ID_RESPONSE).GetGetLastMessageIdResponse()
}

func idPos(id *proto.MessageIdData) Position {
	return Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}

// TestGetLastMessageIDReportsMarkDelete checks the response against what
// Pulsar's ServerCnx sends: the mark-delete position is there for a reader
// (a non-durable subscription) as for a durable one — the official client's
// Reader.HasNext after SeekByTime dereferences it — including on an empty
// topic and after a seek by time; batch_index is the last index of the last
// batch, -1 for an entry that is not a batch.
func TestGetLastMessageIDReportsMarkDelete(t *testing.T) {
	b := RunT(t)
	const topic = "persistent://public/default/last-id"

	reader := dialRaw(t, b)
	reader.connect()
	rawReader(t, reader, topic, 1)

	// Empty topic: last -1:-1 (batch -1); mark-delete {ledger, -1}.
	r := getLastMessageID(reader, 1, 1)
	assert.Equal(t, Position{Ledger: -1, Entry: -1}, idPos(r.GetLastMessageId()))
	assert.Equal(t, int32(-1), r.GetLastMessageId().GetBatchIndex())
	require.NotNil(t, r.ConsumerMarkDeletePosition, "mark-delete position missing on an empty topic")
	assert.GreaterOrEqual(t, idPos(r.ConsumerMarkDeletePosition).Ledger, int64(0))
	assert.Equal(t, int64(-1), idPos(r.ConsumerMarkDeletePosition).Entry)

	prod := dialRaw(t, b)
	prod.connect()
	pos := rawProduce(t, prod, topic, []string{"a"}, []string{"b"}, []string{"c1", "c2", "c3"})

	// Nothing read: mark-delete just before the first entry.
	r = getLastMessageID(reader, 1, 2)
	assert.Equal(t, pos[2], idPos(r.GetLastMessageId()))
	assert.Equal(t, int32(2), r.GetLastMessageId().GetBatchIndex(), "largest index of a 3-message batch")
	require.NotNil(t, r.ConsumerMarkDeletePosition)
	assert.Equal(t, Position{Ledger: pos[0].Ledger, Entry: -1}, idPos(r.ConsumerMarkDeletePosition))

	// Seek by time past every publish time (rawProduce stamps 1 ms): the
	// cursor resets after the last entry, so mark-delete = the last entry.
	// The reader is disconnected and reattaches to the reset cursor, though
	// it asks for earliest again (as the official client does).
	reader.Send(&proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(3), MessagePublishTime: gproto.Uint64(2)}})
	reader.expect(proto.BaseCommand_CLOSE_CONSUMER)
	reader.expect(proto.BaseCommand_SUCCESS)
	rawReader(t, reader, topic, 2)
	r = getLastMessageID(reader, 2, 4)
	require.NotNil(t, r.ConsumerMarkDeletePosition)
	assert.Equal(t, pos[2], idPos(r.ConsumerMarkDeletePosition), "mark-delete after seeking past the last entry")

	// Seek by time before every entry: mark-delete {first ledger, -1}.
	reader.Send(&proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{
		ConsumerId: gproto.Uint64(2), RequestId: gproto.Uint64(5), MessagePublishTime: gproto.Uint64(1)}})
	reader.expect(proto.BaseCommand_CLOSE_CONSUMER)
	reader.expect(proto.BaseCommand_SUCCESS)
	rawReader(t, reader, topic, 3)
	r = getLastMessageID(reader, 3, 6)
	require.NotNil(t, r.ConsumerMarkDeletePosition)
	assert.Equal(t, Position{Ledger: pos[0].Ledger, Entry: -1}, idPos(r.ConsumerMarkDeletePosition))

	// A durable subscription: mark-delete follows its acks; the last
	// entry not being a batch gives batch_index -1.
	rawProduce2 := dialRaw(t, b)
	rawProduce2.connect()
	single := rawProduce(t, rawProduce2, topic, []string{"d"})
	cons := dialRaw(t, b)
	cons.connect()
	rawSubscribe(t, cons, topic, 7, 10)
	rawAck(cons, 7, pos[0], nil, 70)
	r = getLastMessageID(cons, 7, 71)
	assert.Equal(t, single[0], idPos(r.GetLastMessageId()))
	assert.Equal(t, int32(-1), r.GetLastMessageId().GetBatchIndex())
	require.NotNil(t, r.ConsumerMarkDeletePosition)
	assert.Equal(t, pos[0], idPos(r.ConsumerMarkDeletePosition))
}

// TestSeekOnEmptyTopicKeepsPulsarMarkDelete: a seek to latest on an empty
// topic leaves the mark-delete position at {ledger, -1}, never a negative
// ledger, and the next message is delivered.
func TestSeekOnEmptyTopicKeepsPulsarMarkDelete(t *testing.T) {
	b := RunT(t)
	const topic = "persistent://public/default/seek-empty"
	c := dialRaw(t, b)
	c.connect()
	rawSubscribe(t, c, topic, 1, 0)
	latest := uint64(1<<63 - 1)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(2),
		MessageId: &proto.MessageIdData{LedgerId: &latest, EntryId: &latest}}})
	c.expect(proto.BaseCommand_CLOSE_CONSUMER)
	c.expect(proto.BaseCommand_SUCCESS)
	rawSubscribe(t, c, topic, 3, 10)
	r := getLastMessageID(c, 3, 4)
	require.NotNil(t, r.ConsumerMarkDeletePosition)
	md := idPos(r.ConsumerMarkDeletePosition)
	assert.GreaterOrEqual(t, md.Ledger, int64(0))
	assert.Equal(t, int64(-1), md.Entry)

	p := dialRaw(t, b)
	p.connect()
	pos := rawProduce(t, p, topic, []string{"x"})
	m := c.expect(proto.BaseCommand_MESSAGE).GetMessage()
	assert.Equal(t, pos[0], idPos(m.GetMessageId()))
	assert.Equal(t, md.Ledger, pos[0].Ledger, "the mark-delete ledger is the one that took the append")
}
