package wire

import (
	"encoding/binary"
	"math"
	"strconv"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// MinBatchEntrySize is the smallest encoding of one message in a batch: the
// 4-byte size and a SingleMessageMetadata holding only its required
// payload_size (a 1-byte tag and a 1-byte varint, for an empty body).
// SplitBatch rejects a count above len(payload)/MinBatchEntrySize up front.
const MinBatchEntrySize = 6

// BatchMessage is one message of a batch payload.
type BatchMessage struct {
	// Meta is the message's SingleMessageMetadata.
	Meta *proto.SingleMessageMetadata
	// Body aliases the batch payload, with its capacity cut at its end.
	Body []byte
}

// IsBatch reports whether an entry with this metadata carries a batch
// payload. As in Pulsar's clients, that is whether num_messages_in_batch is
// present at all (even when it is 1), not its value.
func IsBatch(meta *proto.MessageMetadata) bool {
	return meta != nil && meta.NumMessagesInBatch != nil
}

// AppendBatchEntry appends one message of a batch payload to dst:
// [size][smm][body]. It sets smm's payload_size to len(body) (modifying smm;
// a nil smm is taken as an empty SingleMessageMetadata). It fails with
// ErrBadBatch when body exceeds 2^31-1 bytes and with ErrMalformed when smm
// does not encode; dst is then returned unchanged.
func AppendBatchEntry(dst []byte, smm *proto.SingleMessageMetadata, body []byte) ([]byte, error) {
	if len(body) > math.MaxInt32 {
		return dst, newError(ErrBadBatch, "message body of "+strconv.Itoa(len(body))+" bytes", nil)
	}
	if smm == nil {
		smm = &proto.SingleMessageMetadata{}
	}
	smm.PayloadSize = protobuf.Int32(int32(len(body)))
	start := len(dst)
	out, err := marshalOpts.MarshalAppend(append(dst, 0, 0, 0, 0), smm)
	if err != nil {
		return dst, newError(ErrMalformed, "encoding single message metadata", err)
	}
	dst = out
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return append(dst, body...), nil
}

// SplitBatch walks a batch payload of n messages (the entry's
// num_messages_in_batch) and calls fn, when not nil, for each message in
// order with a fresh SingleMessageMetadata and the body, which aliases
// payload (capacity cut at its end). An error from fn stops the walk and is
// returned as is.
//
// It fails with ErrBadBatch, before decoding anything, when n < 1 or n >
// len(payload)/MinBatchEntrySize; and when a metadata size or payload_size is
// negative or runs past the payload, a SingleMessageMetadata does not decode
// (or lacks payload_size), fewer than n messages are present, or bytes remain
// after n. fn may have been called for the messages before the bad one; use
// DecodeBatch (or SplitBatch with a nil fn first) for all-or-nothing.
func SplitBatch(payload []byte, n int, fn func(i int, smm *proto.SingleMessageMetadata, body []byte) error) error {
	if n < 1 || n > len(payload)/MinBatchEntrySize {
		return newError(ErrBadBatch, "count "+strconv.Itoa(n)+" impossible in "+
			strconv.Itoa(len(payload))+" bytes", nil)
	}
	rest := payload
	for i := range n {
		at := strconv.Itoa(len(payload) - len(rest))
		if len(rest) < 4 {
			return newError(ErrBadBatch, "message "+strconv.Itoa(i)+" of "+strconv.Itoa(n)+
				" missing at offset "+at, nil)
		}
		size := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if uint64(size) > uint64(len(rest)) {
			return newError(ErrBadBatch, "message "+strconv.Itoa(i)+" metadata size "+
				itoa(uint64(size))+" > "+strconv.Itoa(len(rest))+" bytes left", nil)
		}
		smm := &proto.SingleMessageMetadata{}
		if err := strictOpts.Unmarshal(rest[:size], smm); err != nil {
			return newError(ErrBadBatch, "message "+strconv.Itoa(i)+" metadata at offset "+at, err)
		}
		rest = rest[size:]
		ps := smm.GetPayloadSize()
		if ps < 0 || int64(ps) > int64(len(rest)) {
			return newError(ErrBadBatch, "message "+strconv.Itoa(i)+" payload size "+
				strconv.Itoa(int(ps))+" vs "+strconv.Itoa(len(rest))+" bytes left", nil)
		}
		body := rest[:ps:ps]
		rest = rest[ps:]
		if fn != nil {
			if err := fn(i, smm, body); err != nil {
				return err
			}
		}
	}
	if len(rest) != 0 {
		return newError(ErrBadBatch, strconv.Itoa(len(rest))+" bytes after "+strconv.Itoa(n)+" messages", nil)
	}
	return nil
}

// DecodeBatch is SplitBatch collecting the messages: it returns all n
// messages or an error, never part of them.
func DecodeBatch(payload []byte, n int) ([]BatchMessage, error) {
	if n < 1 || n > len(payload)/MinBatchEntrySize {
		return nil, SplitBatch(payload, n, nil)
	}
	msgs := make([]BatchMessage, 0, n)
	err := SplitBatch(payload, n, func(_ int, smm *proto.SingleMessageMetadata, body []byte) error {
		msgs = append(msgs, BatchMessage{Meta: smm, Body: body})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}
