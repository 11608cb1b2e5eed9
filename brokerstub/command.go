package brokerstub

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pulsargo/sdk/internal/proto"
)

// Command is a Pulsar command type as Pulsar names it ("SEND", "ACK", ...),
// the Type of an Event. The constants name the commands the stub handles
// or sends; any other command type is Command of its Pulsar name. Being a
// string type, it compares with string constants: ev.Type == "SEND".
type Command string

// The command types of the Pulsar binary protocol that brokerstub handles
// or sends.
const (
	CmdConnect                      Command = "CONNECT"
	CmdConnected                    Command = "CONNECTED"
	CmdPing                         Command = "PING"
	CmdPong                         Command = "PONG"
	CmdLookup                       Command = "LOOKUP"
	CmdLookupResponse               Command = "LOOKUP_RESPONSE"
	CmdPartitionedMetadata          Command = "PARTITIONED_METADATA"
	CmdPartitionedMetadataResponse  Command = "PARTITIONED_METADATA_RESPONSE"
	CmdGetTopicsOfNamespace         Command = "GET_TOPICS_OF_NAMESPACE"
	CmdGetTopicsOfNamespaceResponse Command = "GET_TOPICS_OF_NAMESPACE_RESPONSE"
	CmdGetSchema                    Command = "GET_SCHEMA"
	CmdGetSchemaResponse            Command = "GET_SCHEMA_RESPONSE"
	CmdGetOrCreateSchema            Command = "GET_OR_CREATE_SCHEMA"
	CmdGetOrCreateSchemaResponse    Command = "GET_OR_CREATE_SCHEMA_RESPONSE"
	CmdProducer                     Command = "PRODUCER"
	CmdProducerSuccess              Command = "PRODUCER_SUCCESS"
	CmdSend                         Command = "SEND"
	CmdSendReceipt                  Command = "SEND_RECEIPT"
	CmdSendError                    Command = "SEND_ERROR"
	CmdCloseProducer                Command = "CLOSE_PRODUCER"
	CmdSubscribe                    Command = "SUBSCRIBE"
	CmdFlow                         Command = "FLOW"
	CmdMessage                      Command = "MESSAGE"
	CmdAck                          Command = "ACK"
	CmdAckResponse                  Command = "ACK_RESPONSE"
	CmdRedeliver                    Command = "REDELIVER_UNACKNOWLEDGED_MESSAGES"
	CmdSeek                         Command = "SEEK"
	CmdGetLastMessageID             Command = "GET_LAST_MESSAGE_ID"
	CmdGetLastMessageIDResponse     Command = "GET_LAST_MESSAGE_ID_RESPONSE"
	CmdActiveConsumerChange         Command = "ACTIVE_CONSUMER_CHANGE"
	CmdUnsubscribe                  Command = "UNSUBSCRIBE"
	CmdCloseConsumer                Command = "CLOSE_CONSUMER"
	CmdConsumerStats                Command = "CONSUMER_STATS"
	CmdConsumerStatsResponse        Command = "CONSUMER_STATS_RESPONSE"
	CmdSuccess                      Command = "SUCCESS"
	CmdError                        Command = "ERROR"
	CmdWatchTopicList               Command = "WATCH_TOPIC_LIST"
	CmdWatchTopicListSuccess        Command = "WATCH_TOPIC_LIST_SUCCESS"
	CmdWatchTopicUpdate             Command = "WATCH_TOPIC_UPDATE"
	CmdWatchTopicListClose          Command = "WATCH_TOPIC_LIST_CLOSE"
)

// decodeIDs fills ev's id fields from the fields of cmd's inner command of
// those names (producer_id, consumer_id, sequence_id, message_id,
// message_ids, last_message_id, validation_error), which every command of
// the protocol uses with the same meaning.
func decodeIDs(ev *Event, cmd *proto.BaseCommand) {
	inner := innerCommand(cmd)
	if inner == nil {
		return
	}
	fields := inner.Descriptor().Fields()
	uint64Field := func(name protoreflect.Name) (uint64, bool) {
		fd := fields.ByName(name)
		if fd == nil || fd.Kind() != protoreflect.Uint64Kind || fd.IsList() || !inner.Has(fd) {
			return 0, false
		}
		return inner.Get(fd).Uint(), true
	}
	ev.ProducerID, ev.HasProducerID = uint64Field("producer_id")
	ev.ConsumerID, ev.HasConsumerID = uint64Field("consumer_id")
	ev.SequenceID, ev.HasSequenceID = uint64Field("sequence_id")
	for _, name := range []protoreflect.Name{"message_id", "message_ids", "last_message_id"} {
		fd := fields.ByName(name)
		if fd == nil || fd.Kind() != protoreflect.MessageKind || !inner.Has(fd) {
			continue
		}
		if fd.IsList() {
			list := inner.Get(fd).List()
			for i := 0; i < list.Len(); i++ {
				ev.MessageIDs = append(ev.MessageIDs, positionOf(list.Get(i).Message()))
			}
		} else {
			ev.MessageIDs = append(ev.MessageIDs, positionOf(inner.Get(fd).Message()))
		}
	}
	if fd := fields.ByName("validation_error"); fd != nil && fd.Kind() == protoreflect.EnumKind && inner.Has(fd) {
		if v := fd.Enum().Values().ByNumber(inner.Get(fd).Enum()); v != nil {
			ev.ValidationError = string(v.Name())
		}
	}
}

// innerCommand returns the set command message of cmd (CommandSend for a
// SEND, ...), or nil.
func innerCommand(cmd *proto.BaseCommand) protoreflect.Message {
	var inner protoreflect.Message
	cmd.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() == protoreflect.MessageKind && !fd.IsList() {
			inner = v.Message()
			return false
		}
		return true
	})
	return inner
}

// positionOf reads the ledger:entry of a MessageIdData.
func positionOf(m protoreflect.Message) Position {
	id, ok := m.Interface().(*proto.MessageIdData)
	if !ok {
		return Position{}
	}
	return Position{Ledger: int64(id.GetLedgerId()), Entry: int64(id.GetEntryId())}
}
