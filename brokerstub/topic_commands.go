package brokerstub

// The commands a topic sends the clients attached to it on its own: the
// answers its goroutine gives (SEND_RECEIPT, SEND_ERROR, PRODUCER_SUCCESS)
// and the commands the broker starts (CLOSE_CONSUMER, CLOSE_PRODUCER). The
// data path builds them here and queues them through a client's peer;
// the handlers (handle_*.go) use them too.

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// brokerRequestID is the request id of commands the broker starts itself
// (CloseProducer, CloseConsumer), as Pulsar's -1L.
const brokerRequestID = ^uint64(0)

// receipt is the CommandSendReceipt for an entry stored at pos.
func (t *topic) receipt(producerID, seq, highest uint64, pos ledger.Position) *proto.BaseCommand {
	l, e := uint64(pos.Ledger), uint64(pos.Entry)
	part := int32(t.name.Partition)
	r := &proto.CommandSendReceipt{ProducerId: &producerID, SequenceId: &seq,
		MessageId: &proto.MessageIdData{LedgerId: &l, EntryId: &e, Partition: &part}}
	if highest > 0 {
		r.HighestSequenceId = &highest
	}
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND_RECEIPT.Enum(), SendReceipt: r}
}

func sendError(producerID, seq uint64, code proto.ServerError, msg string) *proto.BaseCommand {
	return &proto.BaseCommand{Type: proto.BaseCommand_SEND_ERROR.Enum(), SendError: &proto.CommandSendError{
		ProducerId: &producerID, SequenceId: &seq, Error: code.Enum(), Message: &msg}}
}

// withLastSequenceID sets a PRODUCER_SUCCESS's last_sequence_id: -1 unless
// deduplication knows the producer name (dedup.go).
func withLastSequenceID(last int64) func(*proto.CommandProducerSuccess) {
	return func(ps *proto.CommandProducerSuccess) { ps.LastSequenceId = &last }
}

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
