package engine

// The commands a topic sends the clients attached to it on its own: the
// answers its goroutine gives (SEND_RECEIPT, SEND_ERROR, PRODUCER_SUCCESS)
// and the commands the broker starts (CLOSE_CONSUMER, CLOSE_PRODUCER). The
// data path builds them here and queues them through a client's peer;
// the binary protocol (internal/protocol) builds its SendError, ErrorCmd
// and SuccessCmd answers with them too.

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// brokerRequestID is the request id of commands the broker starts itself
// (CloseProducer, CloseConsumer), as Pulsar's -1L.
const brokerRequestID = ^uint64(0)

// Receipt is the CommandSendReceipt for an entry stored at pos.
func (t *Topic) Receipt(producerID, seq, highest uint64, pos ledger.Position) *proto.BaseCommand {
	l, e := uint64(pos.Ledger), uint64(pos.Entry)
	part := int32(t.name.Partition)
	r := &proto.CommandSendReceipt{ProducerId: &producerID, SequenceId: &seq,
		MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &e, Partition: &part}}
	if highest > 0 {
		r.HighestSequenceId = &highest
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND_RECEIPT.Enum(), SendReceipt: r}
}

// SendError is the CommandSendError for SEND seq of producerID.
func SendError(producerID, seq uint64, code proto.ServerError, msg string) *proto.BaseCommand {
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND_ERROR.Enum(), SendError: &proto.CommandSendError{
		ProducerId: &producerID, SequenceId: &seq, Error: code.Enum(), Message: &msg}}
}

// withLastSequenceID sets a PRODUCER_SUCCESS's last_sequence_id: -1 unless
// deduplication knows the producer name (dedup.go).
func withLastSequenceID(last int64) func(*proto.CommandProducerSuccess) {
	return func(ps *proto.CommandProducerSuccess) { ps.LastSequenceId = &last }
}

// closeConsumerCmd tells the client to close consumer id (the broker
// closes it: seek, unload, unsubscribe by another consumer).
func closeConsumerCmd(id uint64) *proto.BaseCommand {
	rid := brokerRequestID
	return &proto.BaseCommand{Type: proto.BaseCommand_CLOSE_CONSUMER.Enum(), CloseConsumer: &proto.CommandCloseConsumer{ConsumerId: &id, RequestId: &rid}}
}

// withSchemaVersion sets a PRODUCER_SUCCESS's schema_version: the version
// of the producer's schema, empty for a producer without one.
func withSchemaVersion(v []byte) func(*proto.CommandProducerSuccess) {
	return func(ps *proto.CommandProducerSuccess) { ps.SchemaVersion = v }
}

// withEpoch sets topic_epoch (when known) in a PRODUCER_SUCCESS.
func withEpoch(e *uint64) func(*proto.CommandProducerSuccess) {
	return func(ps *proto.CommandProducerSuccess) { ps.TopicEpoch = e }
}

// notReady marks a PRODUCER_SUCCESS producer_ready=false: the producer is
// queued (WaitForExclusive).
func notReady(ps *proto.CommandProducerSuccess) { ps.ProducerReady = new(bool) }

// ErrorCmd answers request rid with CommandError.
func ErrorCmd(rid uint64, code proto.ServerError, msg string) *proto.BaseCommand {
	return &proto.BaseCommand{Type: proto.BaseCommand_ERROR.Enum(), Error: &proto.CommandError{
		RequestId: &rid, Error: code.Enum(), Message: &msg}}
}

// SuccessCmd answers request rid with CommandSuccess.
func SuccessCmd(rid uint64) *proto.BaseCommand {
	return &proto.BaseCommand{Type: proto.BaseCommand_SUCCESS.Enum(), Success: &proto.CommandSuccess{RequestId: &rid}}
}

// producerSuccessCmd answers PRODUCER request rid for the producer of that
// name; opts set optional fields (withEpoch, withSchemaVersion,
// withLastSequenceID, notReady).
func producerSuccessCmd(rid uint64, name string, opts ...func(*proto.CommandProducerSuccess)) *proto.BaseCommand {
	last := int64(-1)
	ps := &proto.CommandProducerSuccess{RequestId: &rid, ProducerName: &name, LastSequenceId: &last}
	for _, o := range opts {
		o(ps)
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_PRODUCER_SUCCESS.Enum(), ProducerSuccess: ps}
}

// closeProducerCmd tells the client to close producer id (the broker
// closes it: unload, fencing).
func closeProducerCmd(id uint64) *proto.BaseCommand {
	rid := brokerRequestID
	return &proto.BaseCommand{Type: proto.BaseCommand_CLOSE_PRODUCER.Enum(), CloseProducer: &proto.CommandCloseProducer{ProducerId: &id, RequestId: &rid}}
}

// messageScratch is the MESSAGE command a subscription fills in and encodes
// for every entry it delivers, so that delivering an entry allocates only
// its frame header. Owned by the topic goroutine.
type messageScratch struct {
	cmd        proto.BaseCommand
	msg        proto.CommandMessage
	id         proto.MessageIdData
	typ        proto.BaseCommand_Type
	consumerID uint64
	ledger     uint64
	entry      uint64
	partition  int32
	redelivery uint32
	epoch      uint64
}

// fill sets the scratch command to a MESSAGE for consumer id of the entry
// at ledger:entry of partition, with its ack set, redelivery count and
// consumer epoch (0: absent), and returns it.
func (m *messageScratch) fill(id, ledger, entry uint64, partition int32, ackSet []int64, redelivery uint32, epoch uint64) *proto.BaseCommand {
	m.typ = proto.BaseCommand_MESSAGE
	m.consumerID, m.ledger, m.entry, m.partition = id, ledger, entry, partition
	m.id.Reset()
	m.id.LedgerId, m.id.EntryId, m.id.Partition = &m.ledger, &m.entry, &m.partition
	m.msg.Reset()
	m.msg.ConsumerId, m.msg.MessageId, m.msg.AckSet = &m.consumerID, &m.id, ackSet
	if redelivery > 0 {
		m.redelivery = redelivery
		m.msg.RedeliveryCount = &m.redelivery
	}
	if epoch > 0 {
		m.epoch = epoch
		m.msg.ConsumerEpoch = &m.epoch
	}
	m.cmd.Reset()
	m.cmd.Type, m.cmd.Message = &m.typ, &m.msg
	return &m.cmd
}
