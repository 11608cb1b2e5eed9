package engine

import (
	"github.com/pulsargo/sdk/brokerstub/internal/ledger"
	"github.com/pulsargo/sdk/internal/proto"
)

// receiptScratch is the SEND_RECEIPT a producer's topic goroutine fills in
// and encodes for each stored entry, so that a receipt allocates only its
// frame (conn.write encodes the command at once and keeps nothing of it).
// Owned by the topic goroutine of the producer's topic.
type receiptScratch struct {
	cmd        proto.BaseCommand
	receipt    proto.CommandSendReceipt
	id         proto.MessageIdData
	typ        proto.BaseCommand_Type
	producerID uint64
	seq        uint64
	highest    uint64
	ledger     uint64
	entry      uint64
	partition  int32
}

// fill sets the scratch command to the receipt of sequence seq (and
// highest, when > 0) stored at pos of partition, and returns it; as
// topic.receipt, without allocating.
func (r *receiptScratch) fill(producerID, seq, highest uint64, pos ledger.Position, partition int32) *proto.BaseCommand {
	r.typ = proto.BaseCommand_SEND_RECEIPT
	r.producerID, r.seq, r.highest = producerID, seq, highest
	r.ledger, r.entry, r.partition = uint64(pos.Ledger), uint64(pos.Entry), partition
	r.id.Reset()
	r.id.LedgerId, r.id.EntryId, r.id.Partition = &r.ledger, &r.entry, &r.partition
	r.receipt.Reset()
	r.receipt.ProducerId, r.receipt.SequenceId, r.receipt.MessageId = &r.producerID, &r.seq, &r.id
	if highest > 0 {
		r.receipt.HighestSequenceId = &r.highest
	}
	r.cmd.Reset()
	r.cmd.Type, r.cmd.SendReceipt = &r.typ, &r.receipt
	return &r.cmd
}
