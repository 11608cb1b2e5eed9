package wire

import (
	"encoding/binary"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// SingleMessage holds the fields of a SingleMessageMetadata that a producer
// sets for one message of a batch, for AppendSingleMessage. Zero values are
// absent fields.
type SingleMessage struct {
	// Properties are the message's properties (field 1), in map order.
	Properties map[string]string
	// PartitionKey is the message key (field 2); "" for none.
	PartitionKey string
	// EventTime is the event time in Unix milliseconds (field 5); 0 for none.
	EventTime uint64
	// OrderingKey is the ordering key (field 7); empty for none.
	OrderingKey []byte
	// SequenceID is the message's sequence id (field 8), set when
	// HasSequenceID.
	SequenceID    uint64
	HasSequenceID bool
}

// SingleMessageMetadata field numbers, and KeyValue's.
const (
	smmProperties   = 1
	smmPartitionKey = 2
	smmPayloadSize  = 3
	smmEventTime    = 5
	smmOrderingKey  = 7
	smmSequenceID   = 8
	kvKey           = 1
	kvValue         = 2
)

// AppendSingleMessage appends one message of a batch payload to dst, as
// AppendBatchEntry does for the SingleMessageMetadata that sm describes
// (payload_size = len(body)), but encodes the metadata itself, in field
// order, without building the proto message: no allocation beyond dst's
// growth. It fails with ErrBadBatch when body exceeds 2^31-1 bytes; dst is
// then returned unchanged.
func AppendSingleMessage(dst []byte, sm *SingleMessage, body []byte) ([]byte, error) {
	if len(body) > math.MaxInt32 {
		return dst, newError(ErrBadBatch, "message body of "+strconv.Itoa(len(body))+" bytes", nil)
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for k, v := range sm.Properties {
		dst = protowire.AppendTag(dst, smmProperties, protowire.BytesType)
		n := protowire.SizeTag(kvKey) + protowire.SizeBytes(len(k)) + protowire.SizeTag(kvValue) + protowire.SizeBytes(len(v))
		dst = protowire.AppendVarint(dst, uint64(n))
		dst = appendString(dst, kvKey, k)
		dst = appendString(dst, kvValue, v)
	}
	if sm.PartitionKey != "" {
		dst = appendString(dst, smmPartitionKey, sm.PartitionKey)
	}
	dst = protowire.AppendTag(dst, smmPayloadSize, protowire.VarintType)
	dst = protowire.AppendVarint(dst, uint64(len(body)))
	if sm.EventTime != 0 {
		dst = protowire.AppendTag(dst, smmEventTime, protowire.VarintType)
		dst = protowire.AppendVarint(dst, sm.EventTime)
	}
	if len(sm.OrderingKey) > 0 {
		dst = protowire.AppendTag(dst, smmOrderingKey, protowire.BytesType)
		dst = protowire.AppendBytes(dst, sm.OrderingKey)
	}
	if sm.HasSequenceID {
		dst = protowire.AppendTag(dst, smmSequenceID, protowire.VarintType)
		dst = protowire.AppendVarint(dst, sm.SequenceID)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return append(dst, body...), nil
}

// appendString appends a string field.
func appendString(dst []byte, num protowire.Number, s string) []byte {
	dst = protowire.AppendTag(dst, num, protowire.BytesType)
	return protowire.AppendString(dst, s)
}
