package brokerstub

import (
	"encoding/binary"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// outFrame is one frame waiting to be written: the encoded header (the
// whole frame for a simple command) and, for a MESSAGE, the payload, which is
// written from the ledger's buffer without a copy. Topic goroutines push
// them to a connection's frameq.Queue and never block on a slow client.
//
// The command is encoded when the frame is queued and not kept, so that
// the dispatch loop can build every MESSAGE in one reused command
// (messageScratch): an interceptor gets the command decoded from the header
// (command).
type outFrame struct {
	header  []byte
	payload []byte
}

// command decodes the frame's command from its header, for an interceptor:
// [total size][command size][command]...
func (f outFrame) command() *proto.BaseCommand {
	cmd := &proto.BaseCommand{}
	if len(f.header) < 8 {
		return cmd
	}
	size := binary.BigEndian.Uint32(f.header[4:8])
	if uint64(size) > uint64(len(f.header)-8) {
		return cmd
	}
	_ = gproto.UnmarshalOptions{AllowPartial: true}.Unmarshal(f.header[8:8+size], cmd)
	return cmd
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
