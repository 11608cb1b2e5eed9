package messageid

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	pb "github.com/pulsargo/sdk/internal/proto"
)

// MaxSerializedSize bounds the input of Deserialize: 64 KiB, far above any
// real MessageIdData (an ack set for a 10,000-message batch is ~1.3 KiB).
const MaxSerializedSize = 64 << 10

// Serialize returns the id as Pulsar's MessageIdData bytes, byte for byte what
// the official Go client writes for the same id.
func (id ID) Serialize() []byte { return marshal(ToProto(id)) }

// Serialize returns the chunk id as MessageIdData bytes: the last chunk's
// position with first_chunk_message_id naming the first chunk, byte for byte
// what the official Go client writes. Deserialize restores both ids.
func (c ChunkMessageID) Serialize() []byte { return marshal(ToProto(c)) }

func marshal(m *pb.MessageIdData) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		// Every required field is set by ToProto; this cannot happen.
		panic(fmt.Sprintf("messageid: marshal: %v", err))
	}
	return b
}

// ToProto returns the wire form of id. For an ID it sets ledger, entry,
// partition, batch index and batch size; for a ChunkMessageID the last
// chunk's ledger, entry, partition and batch index plus
// first_chunk_message_id — the same fields the official Go client sets.
// It is meant for this module's own packages.
func ToProto(id MessageID) *pb.MessageIdData {
	if c, ok := id.(ChunkMessageID); ok {
		return &pb.MessageIdData{
			LedgerId:            proto.Uint64(uint64(c.last.ledger)),
			EntryId:             proto.Uint64(uint64(c.last.entry)),
			Partition:           proto.Int32(c.last.partition),
			BatchIndex:          proto.Int32(c.last.batchIdx),
			FirstChunkMessageId: chunkProto(c.first),
		}
	}
	v := Of(id)
	return &pb.MessageIdData{
		LedgerId:   proto.Uint64(uint64(v.ledger)),
		EntryId:    proto.Uint64(uint64(v.entry)),
		Partition:  proto.Int32(v.partition),
		BatchIndex: proto.Int32(v.batchIdx),
		BatchSize:  proto.Int32(v.batchSize),
	}
}

func chunkProto(first ID) *pb.MessageIdData {
	return &pb.MessageIdData{
		LedgerId:   proto.Uint64(uint64(first.ledger)),
		EntryId:    proto.Uint64(uint64(first.entry)),
		Partition:  proto.Int32(first.partition),
		BatchIndex: proto.Int32(first.batchIdx),
	}
}

// Deserialize reads an id written by Serialize, by the official Go client or
// by any Pulsar client. An id carrying first_chunk_message_id comes back as a
// ChunkMessageID. Malformed or implausible input (more than
// MaxSerializedSize bytes, bad protobuf, negative batch size, a batch index
// outside its batch, a first chunk after the last) returns an error wrapping
// ErrInvalid.
func Deserialize(data []byte) (MessageID, error) {
	if len(data) > MaxSerializedSize {
		return nil, fmt.Errorf("%w: %d bytes exceeds %d", ErrInvalid, len(data), MaxSerializedSize)
	}
	var m pb.MessageIdData
	if err := proto.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return FromProto(&m)
}

// FromProto converts the wire form to a MessageID, validating it as
// Deserialize does. It is meant for this module's own packages.
func FromProto(m *pb.MessageIdData) (MessageID, error) {
	last, err := idFromProto(m)
	if err != nil {
		return nil, err
	}
	f := m.GetFirstChunkMessageId()
	if f == nil {
		return last, nil
	}
	if f.FirstChunkMessageId != nil {
		return nil, fmt.Errorf("%w: first chunk id has a first chunk id of its own", ErrInvalid)
	}
	first, err := idFromProto(f)
	if err != nil {
		return nil, fmt.Errorf("first chunk: %w", err)
	}
	first.partition = last.partition
	if Compare(first, last) > 0 {
		return nil, fmt.Errorf("%w: first chunk %s after last chunk %s", ErrInvalid, first, last)
	}
	return ChunkMessageID{first: first, last: last}, nil
}

func idFromProto(m *pb.MessageIdData) (ID, error) {
	id := ID{
		ledger:    int64(m.GetLedgerId()),
		entry:     int64(m.GetEntryId()),
		batchIdx:  m.GetBatchIndex(),
		partition: m.GetPartition(),
		batchSize: m.GetBatchSize(),
	}
	switch {
	case id.batchIdx < -1:
		return ID{}, fmt.Errorf("%w: batch index %d", ErrInvalid, id.batchIdx)
	case id.partition < -1:
		return ID{}, fmt.Errorf("%w: partition %d", ErrInvalid, id.partition)
	case id.batchSize < 0:
		return ID{}, fmt.Errorf("%w: batch size %d", ErrInvalid, id.batchSize)
	case id.batchSize > 0 && id.batchIdx >= id.batchSize:
		return ID{}, fmt.Errorf("%w: batch index %d outside batch of %d", ErrInvalid, id.batchIdx, id.batchSize)
	}
	return id, nil
}

// Parse reads the text form written by String: "ledger:entry:partition",
// "ledger:entry:partition:batchIndex", or "<first>;<last>" for a chunked
// message. It also reads the official Go client's String output. Errors wrap
// ErrInvalid.
func Parse(s string) (MessageID, error) {
	if a, b, ok := strings.Cut(s, ";"); ok {
		first, err := parseID(a)
		if err != nil {
			return nil, err
		}
		last, err := parseID(b)
		if err != nil {
			return nil, err
		}
		if Compare(first, last) > 0 {
			return nil, fmt.Errorf("%w: first chunk %s after last chunk %s", ErrInvalid, first, last)
		}
		return ChunkMessageID{first: first, last: last}, nil
	}
	return parseID(s)
}

func parseID(s string) (ID, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 && len(parts) != 4 {
		return ID{}, fmt.Errorf("%w: %q: want ledger:entry:partition[:batchIndex]", ErrInvalid, s)
	}
	ledger, err1 := strconv.ParseInt(parts[0], 10, 64)
	entry, err2 := strconv.ParseInt(parts[1], 10, 64)
	partition, err3 := strconv.ParseInt(parts[2], 10, 32)
	batch := int64(-1)
	var err4 error
	if len(parts) == 4 {
		batch, err4 = strconv.ParseInt(parts[3], 10, 32)
	}
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return ID{}, fmt.Errorf("%w: %q: %w", ErrInvalid, s, err)
		}
	}
	if partition < -1 || batch < -1 || (len(parts) == 4 && batch < 0) {
		return ID{}, fmt.Errorf("%w: %q: negative partition or batch index", ErrInvalid, s)
	}
	return ID{ledger: ledger, entry: entry, batchIdx: int32(batch), partition: int32(partition)}, nil
}
