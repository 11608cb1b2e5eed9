package brokerstub

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// TestCommandConstantsArePulsarNames: every Cmd constant is the name of a
// command type of the protocol.
func TestCommandConstantsArePulsarNames(t *testing.T) {
	for _, c := range []Command{CmdConnect, CmdConnected, CmdPing, CmdPong, CmdLookup, CmdLookupResponse,
		CmdPartitionedMetadata, CmdPartitionedMetadataResponse, CmdGetTopicsOfNamespace,
		CmdGetTopicsOfNamespaceResponse, CmdGetSchema, CmdGetSchemaResponse, CmdGetOrCreateSchema,
		CmdGetOrCreateSchemaResponse, CmdProducer, CmdProducerSuccess, CmdSend, CmdSendReceipt, CmdSendError,
		CmdCloseProducer, CmdSubscribe, CmdFlow, CmdMessage, CmdAck, CmdAckResponse, CmdRedeliver, CmdSeek,
		CmdGetLastMessageID, CmdGetLastMessageIDResponse, CmdActiveConsumerChange, CmdUnsubscribe,
		CmdCloseConsumer, CmdConsumerStats, CmdConsumerStatsResponse, CmdSuccess, CmdError,
		CmdWatchTopicList, CmdWatchTopicListSuccess, CmdWatchTopicUpdate, CmdWatchTopicListClose} {
		_, ok := proto.BaseCommand_Type_value[string(c)]
		assert.True(t, ok, "%s is not a Pulsar command type", c)
	}
}

// eventLog records the events an interceptor sees.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) intercept(ev Event) Action {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
	return Action{}
}

// first returns the first event of type typ and direction dir.
func (l *eventLog) first(t *testing.T, dir Direction, typ Command) Event {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range l.evs {
		if ev.Dir == dir && ev.Type == typ {
			return ev
		}
	}
	t.Fatalf("no %s %s event", dir, typ)
	return Event{}
}

// TestEventCarriesDecodedIDs: over the real protocol, an interceptor sees
// the producer, consumer and sequence ids and the message ids of SEND,
// SEND_RECEIPT, MESSAGE, ACK (with its validation error) and
// REDELIVER_UNACKNOWLEDGED_MESSAGES, without parsing Detail.
func TestEventCarriesDecodedIDs(t *testing.T) {
	b := RunT(t)
	var log eventLog
	b.Intercept(log.intercept)
	const topic = "persistent://public/default/event-ids"

	prod := dialRaw(t, b)
	prod.connect()
	pos := rawProduce(t, prod, topic, []string{"a"}, []string{"b"})
	cons := dialRaw(t, b)
	cons.connect()
	rawSubscribe(t, cons, topic, 9, 10)
	cons.expect(proto.BaseCommand_MESSAGE)
	cons.expect(proto.BaseCommand_MESSAGE)
	rid := uint64(90)
	cons.Send(&proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{
		ConsumerId: gproto.Uint64(9), AckType: proto.CommandAck_Individual.Enum(), RequestId: &rid,
		ValidationError: proto.CommandAck_ChecksumMismatch.Enum(),
		MessageId: []*proto.MessageIdData{
			{LedgerId: gproto.Uint64(uint64(pos[0].Ledger)), EntryId: gproto.Uint64(uint64(pos[0].Entry))},
			{LedgerId: gproto.Uint64(uint64(pos[1].Ledger)), EntryId: gproto.Uint64(uint64(pos[1].Entry))}}}})
	cons.expect(proto.BaseCommand_ACK_RESPONSE)
	cons.Send(&proto.BaseCommand{Type: proto.BaseCommand_REDELIVER_UNACKNOWLEDGED_MESSAGES.Enum(),
		RedeliverUnacknowledgedMessages: &proto.CommandRedeliverUnacknowledgedMessages{ConsumerId: gproto.Uint64(9),
			MessageIds: []*proto.MessageIdData{{LedgerId: gproto.Uint64(uint64(pos[1].Ledger)), EntryId: gproto.Uint64(uint64(pos[1].Entry))}}}})
	getLastMessageID(cons, 9, 91) // a barrier: the redeliver was read

	send := log.first(t, Inbound, CmdSend)
	assert.True(t, send.HasProducerID && send.HasSequenceID)
	assert.Equal(t, uint64(1), send.ProducerID)
	assert.Equal(t, uint64(0), send.SequenceID)
	assert.False(t, send.HasConsumerID)
	assert.Nil(t, send.MessageIDs)

	receipt := log.first(t, Outbound, CmdSendReceipt)
	assert.True(t, receipt.HasProducerID && receipt.HasSequenceID)
	id, ok := receipt.MessageID()
	require.True(t, ok)
	assert.Equal(t, pos[0], id)

	msg := log.first(t, Outbound, CmdMessage)
	assert.True(t, msg.HasConsumerID)
	assert.Equal(t, uint64(9), msg.ConsumerID)
	assert.Equal(t, []Position{pos[0]}, msg.MessageIDs)
	assert.False(t, msg.HasProducerID)

	ack := log.first(t, Inbound, CmdAck)
	assert.Equal(t, uint64(9), ack.ConsumerID)
	assert.Equal(t, []Position{pos[0], pos[1]}, ack.MessageIDs)
	assert.Equal(t, "ChecksumMismatch", ack.ValidationError)
	assert.True(t, ack.HasRequestID)
	assert.Equal(t, rid, ack.RequestID)

	redeliver := log.first(t, Inbound, CmdRedeliver)
	assert.Equal(t, []Position{pos[1]}, redeliver.MessageIDs)
	assert.Empty(t, redeliver.ValidationError)

	last := log.first(t, Outbound, CmdGetLastMessageIDResponse)
	assert.Equal(t, []Position{pos[1]}, last.MessageIDs, "the last message id, not the mark-delete position")
}
