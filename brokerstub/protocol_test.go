package brokerstub

import (
	"context"
	"encoding/binary"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

func TestConnectAnnouncesMaxMessageSize(t *testing.T) {
	b := RunT(t, Options{MaxMessageSize: 1 << 20})
	c := dialRaw(t, b)
	got := c.connect()
	assert.Equal(t, int32(1<<20), got.GetMaxMessageSize())
	assert.Equal(t, int32(20), got.GetProtocolVersion())

	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expect(proto.BaseCommand_PONG)
}

func TestCommandBeforeConnectClosesConnection(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expectClosed()
}

func TestUnsupportedCommandGetsError(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	// NEW_TXN with transactionCoordinatorEnabled off (the default).
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_NEW_TXN.Enum(), NewTxn: &proto.CommandNewTxn{RequestId: gproto.Uint64(7)}})
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, uint64(7), e.GetRequestId())
	assert.Equal(t, proto.ServerError_NotAllowedError, e.GetError())
	// The connection is still usable.
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.expect(proto.BaseCommand_PONG)
}

func TestOversizedFrameClosesOnlyThatConnection(t *testing.T) {
	b := RunT(t, Options{MaxMessageSize: 1 << 16})
	bad := dialRaw(t, b)
	bad.connect()
	good := dialRaw(t, b)
	good.connect()

	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], 1<<30) // claims a 1 GiB frame
	bad.writeRaw(hdr[:])
	bad.expectClosed()

	good.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	good.expect(proto.BaseCommand_PONG)
}

func TestMalformedCommandClosesConnection(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	// TOTAL_SIZE 6, CMD_SIZE 2, then two bytes that are not a BaseCommand.
	c.writeRaw([]byte{0, 0, 0, 6, 0, 0, 0, 2, 0xff, 0xff})
	c.expectClosed()
}

func TestRequestsForUnknownConsumerGetErrors(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SEEK.Enum(), Seek: &proto.CommandSeek{
		ConsumerId: gproto.Uint64(99), RequestId: gproto.Uint64(3), MessagePublishTime: gproto.Uint64(1)}})
	e := c.expect(proto.BaseCommand_ERROR).GetError()
	assert.Equal(t, proto.ServerError_ConsumerNotFound, e.GetError())
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
		ConsumerId: gproto.Uint64(99), AckType: proto.CommandAck_Individual.Enum(), RequestId: gproto.Uint64(4),
		MessageId: []*proto.MessageIdData{{LedgerId: gproto.Uint64(1), EntryId: gproto.Uint64(1)}}}})
	r := c.expect(proto.BaseCommand_ACK_RESPONSE).GetAckResponse()
	assert.Equal(t, proto.ServerError_ConsumerNotFound, r.GetError())
}

func TestSendForUnknownProducerClosesConnection(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(5), SequenceId: gproto.Uint64(0)}},
		&proto.MessageMetadata{ProducerName: gproto.String("p"), SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1)},
		[]byte("x"))
	c.expectClosed()
}

func TestProduceConsumeRaw(t *testing.T) {
	b := RunT(t)
	c := dialRaw(t, b)
	c.connect()
	topic := "persistent://public/default/raw"
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PRODUCER.Enum(), Producer: &proto.CommandProducer{
		Topic: &topic, ProducerId: gproto.Uint64(1), RequestId: gproto.Uint64(1)}})
	name := c.expect(proto.BaseCommand_PRODUCER_SUCCESS).GetProducerSuccess().GetProducerName()
	require.NotEmpty(t, name)
	c.sendPayload(&proto.BaseCommand{Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{
		ProducerId: gproto.Uint64(1), SequenceId: gproto.Uint64(0)}},
		&proto.MessageMetadata{ProducerName: &name, SequenceId: gproto.Uint64(0), PublishTime: gproto.Uint64(1)},
		[]byte("hello"))
	rc := c.expect(proto.BaseCommand_SEND_RECEIPT).GetSendReceipt()
	assert.Equal(t, uint64(0), rc.GetSequenceId())

	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(1), RequestId: gproto.Uint64(2),
		InitialPosition: proto.CommandSubscribe_Earliest.Enum()}})
	c.expect(proto.BaseCommand_SUCCESS)
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_FLOW.Enum(), Flow: &proto.CommandFlow{
		ConsumerId: gproto.Uint64(1), MessagePermits: gproto.Uint32(10)}})
	f, err := c.next()
	require.NoError(t, err)
	require.Equal(t, proto.BaseCommand_MESSAGE, f.Cmd.GetType())
	assert.Equal(t, "hello", string(f.Payload))
	assert.Equal(t, rc.GetMessageId().GetEntryId(), f.Cmd.GetMessage().GetMessageId().GetEntryId())

	// A second exclusive consumer is refused.
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_SUBSCRIBE.Enum(), Subscribe: &proto.CommandSubscribe{
		Topic: &topic, Subscription: gproto.String("s"), SubType: proto.CommandSubscribe_Exclusive.Enum(),
		ConsumerId: gproto.Uint64(2), RequestId: gproto.Uint64(3)}})
	assert.Equal(t, proto.ServerError_ConsumerBusy, c.expect(proto.BaseCommand_ERROR).GetError().GetError())
}

func TestInterceptorFailsAndDrops(t *testing.T) {
	b := RunT(t)
	b.Intercept(func(ev Event) Action {
		switch {
		case ev.Dir == Inbound && ev.Type == CmdLookup:
			return Action{Fail: true, FailWith: "TooManyRequests"}
		case ev.Dir == Outbound && ev.Type == CmdPong:
			return Action{Drop: true}
		}
		return Action{}
	})
	c := dialRaw(t, b)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: &proto.CommandLookupTopic{
		Topic: gproto.String("t"), RequestId: gproto.Uint64(1)}})
	assert.Equal(t, proto.ServerError_TooManyRequests, c.expect(proto.BaseCommand_ERROR).GetError().GetError())
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
		Topic: gproto.String("t"), RequestId: gproto.Uint64(2)}})
	// The PONG was dropped: the next frame is the metadata response.
	c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE)
}

func TestPartitionedTopicMetadata(t *testing.T) {
	b := RunT(t)
	require.NoError(t, b.CreatePartitionedTopic("orders", 3))
	c := dialRaw(t, b)
	c.connect()
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_PARTITIONED_METADATA.Enum(), PartitionMetadata: &proto.CommandPartitionedTopicMetadata{
		Topic: gproto.String("persistent://public/default/orders"), RequestId: gproto.Uint64(1)}})
	assert.Equal(t, uint32(3), c.expect(proto.BaseCommand_PARTITIONED_METADATA_RESPONSE).GetPartitionMetadataResponse().GetPartitions())
	c.Send(&proto.BaseCommand{Type: proto.BaseCommand_GET_TOPICS_OF_NAMESPACE.Enum(), GetTopicsOfNamespace: &proto.CommandGetTopicsOfNamespace{
		Namespace: gproto.String("public/default"), RequestId: gproto.Uint64(2)}})
	topics := c.expect(proto.BaseCommand_GET_TOPICS_OF_NAMESPACE_RESPONSE).GetGetTopicsOfNamespaceResponse().GetTopics()
	assert.Equal(t, []string{
		"persistent://public/default/orders-partition-0",
		"persistent://public/default/orders-partition-1",
		"persistent://public/default/orders-partition-2",
	}, topics)
}

// The broker pings an idle client every KeepAliveInterval and closes the
// connection of one that has read nothing for two intervals (before the
// third ping). In a synctest bubble, on the in-memory connection: the
// keep-alive runs on the bubble's clock, so that a loaded machine cannot
// stretch the intervals (on the real clock a test goroutine starved for
// 100 ms found the connection closed before it read the first ping).
func TestBrokerPingsAndDropsSilentClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval = 50 * time.Millisecond
		b, err := Start(Options{NoListener: true, KeepAliveInterval: interval})
		require.NoError(t, err)
		defer b.Close()
		nc, err := b.Dial(context.Background(), "", "")
		require.NoError(t, err)
		defer nc.Close()
		c := dialRawOn(t, nc)
		start := time.Now()
		c.connect()
		f, err := c.next()
		require.NoError(t, err)
		assert.Equal(t, proto.BaseCommand_PING, f.Cmd.GetType(), "the broker pings")
		assert.Equal(t, interval, time.Since(start), "the first ping, one interval after the connection")
		// Never answering: the broker gives up after two intervals, at the
		// third tick.
		c.expectClosed()
		assert.Equal(t, 3*interval, time.Since(start), "closed at the first tick after two silent intervals")
	})
}
