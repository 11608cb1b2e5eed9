package wire

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// marshalOpts encodes deterministically and fails on missing required fields.
var marshalOpts = protobuf.MarshalOptions{Deterministic: true}

// sizedOpts encodes a message whose size marshalOpts.Size has just
// computed, reusing it (the message must not change in between).
var sizedOpts = protobuf.MarshalOptions{Deterministic: true, UseCachedSize: true}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// AppendCommand appends a simple frame holding cmd to dst:
// [TOTAL_SIZE][CMD_SIZE][cmd]. cmd's type must be known, its field set and
// every required field present (ErrUnknownCommand or ErrMalformed otherwise).
// On error dst is returned unchanged (its length; bytes beyond it may have
// been written).
func AppendCommand(dst []byte, cmd *proto.BaseCommand) ([]byte, error) {
	start := len(dst)
	dst, err := appendCommand(dst, cmd)
	if err != nil {
		return dst[:start], err
	}
	total := len(dst) - start - 4
	if uint64(total) > math.MaxUint32 {
		return dst[:start], newError(ErrFrameTooLarge, "command of "+strconv.Itoa(total)+" bytes", nil)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(total))
	return dst, nil
}

// appendCommand appends [TOTAL_SIZE placeholder][CMD_SIZE][cmd] and fills
// CMD_SIZE; the caller fills TOTAL_SIZE.
func appendCommand(dst []byte, cmd *proto.BaseCommand) ([]byte, error) {
	if err := checkCommand(cmd); err != nil {
		return dst, err
	}
	n := marshalOpts.Size(cmd)
	return appendSizedCommand(slices.Grow(dst, 8+n), cmd)
}

// appendSizedCommand is appendCommand for a cmd whose size was just
// computed (marshalOpts.Size) and checked, into dst with room for it.
func appendSizedCommand(dst []byte, cmd *proto.BaseCommand) ([]byte, error) {
	start := len(dst)
	out, err := sizedOpts.MarshalAppend(append(dst, 0, 0, 0, 0, 0, 0, 0, 0), cmd)
	if err != nil {
		return dst, cmdError(ErrMalformed, "encoding command", err, cmd)
	}
	dst = out
	size := len(dst) - start - 8
	if uint64(size) > math.MaxUint32 {
		return dst, cmdError(ErrFrameTooLarge, "command of "+strconv.Itoa(size)+" bytes", nil, cmd)
	}
	binary.BigEndian.PutUint32(dst[start+4:], uint32(size))
	return dst, nil
}

// AppendPayloadHeader appends the header of a payload frame carrying cmd
// (normally SEND or MESSAGE), meta and payload: everything up to and
// including the encoded metadata, with TOTAL_SIZE counting payload and the
// CRC32C computed over metadata and payload. The caller sends the result
// followed by payload (for instance with net.Buffers), so the payload is
// never copied. The checksum section is always written. Errors are those of
// AppendCommand, and ErrMalformed for a nil or incomplete meta. This package
// does not limit the size; the caller checks it against the negotiated
// maximum.
func AppendPayloadHeader(dst []byte, cmd *proto.BaseCommand, meta *proto.MessageMetadata, payload []byte) ([]byte, error) {
	if meta == nil {
		return dst, cmdError(ErrMalformed, "nil message metadata", nil, cmd)
	}
	return appendPayloadHeader(dst, cmd, nil, meta, nil, payload, nil)
}

// AppendPayloadHeaderRaw is AppendPayloadHeader with metadata already
// encoded: rawMeta is written as is (not validated, but it must not be
// empty), as a broker does when it resends a stored entry.
func AppendPayloadHeaderRaw(dst []byte, cmd *proto.BaseCommand, rawMeta, payload []byte) ([]byte, error) {
	return appendPayloadHeader(dst, cmd, nil, nil, rawMeta, payload, nil)
}

// AppendPayloadHeaderRawSum is AppendPayloadHeaderRaw with the checksum
// already known: sum is written as the frame's CRC32C without reading
// rawMeta and payload again. It must be their checksum as a frame carries
// it (of rawMeta's size as 4 bytes big-endian, rawMeta and payload), as
// Frame.Checksum is for the frame they were received in.
func AppendPayloadHeaderRawSum(dst []byte, cmd *proto.BaseCommand, rawMeta, payload []byte, sum uint32) ([]byte, error) {
	return appendPayloadHeader(dst, cmd, nil, nil, rawMeta, payload, &sum)
}

// AppendPayloadHeaderWithBrokerMeta is AppendPayloadHeaderRaw with a
// broker-entry-metadata section ([0x0e02][size][brokerMeta]) between the
// command and the checksum, for a broker sending MESSAGE to a client that
// announced supports_broker_entry_metadata. A nil brokerMeta writes no such
// section.
func AppendPayloadHeaderWithBrokerMeta(dst []byte, cmd *proto.BaseCommand, brokerMeta *proto.BrokerEntryMetadata, rawMeta, payload []byte) ([]byte, error) {
	return appendPayloadHeader(dst, cmd, brokerMeta, nil, rawMeta, payload, nil)
}

// AppendPayloadFrame appends a whole payload frame: AppendPayloadHeader
// followed by a copy of payload.
func AppendPayloadFrame(dst []byte, cmd *proto.BaseCommand, meta *proto.MessageMetadata, payload []byte) ([]byte, error) {
	start := len(dst)
	dst, err := AppendPayloadHeader(dst, cmd, meta, payload)
	if err != nil {
		return dst[:start], err
	}
	return append(dst, payload...), nil
}

// appendPayloadHeader writes a payload frame header with either meta or
// rawMeta as the metadata, and the checksum *sum when not nil.
func appendPayloadHeader(dst []byte, cmd *proto.BaseCommand, brokerMeta *proto.BrokerEntryMetadata,
	meta *proto.MessageMetadata, rawMeta, payload []byte, sum *uint32) ([]byte, error) {
	start := len(dst)
	if err := checkCommand(cmd); err != nil {
		return dst, err
	}
	// Size the whole header first: it is then allocated once, and each
	// part is encoded with the size computed here.
	need := 8 + marshalOpts.Size(cmd) + 10 + len(rawMeta)
	if brokerMeta != nil {
		need += 6 + marshalOpts.Size(brokerMeta)
	}
	if meta != nil {
		need += marshalOpts.Size(meta)
	}
	dst = slices.Grow(dst, need)
	dst, err := appendSizedCommand(dst, cmd)
	if err != nil {
		return dst[:start], err
	}
	if brokerMeta != nil {
		at := len(dst)
		dst = append(dst, byte(MagicBrokerEntryMetadata>>8), byte(MagicBrokerEntryMetadata&0xff), 0, 0, 0, 0)
		out, err := sizedOpts.MarshalAppend(dst, brokerMeta)
		if err != nil {
			return dst[:start], cmdError(ErrMalformed, "encoding broker entry metadata", err, cmd)
		}
		dst = out
		binary.BigEndian.PutUint32(dst[at+2:], uint32(len(dst)-at-6))
	}
	dst = append(dst, byte(MagicChecksum>>8), byte(MagicChecksum&0xff), 0, 0, 0, 0)
	sumAt := len(dst) - 4
	metaAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	if meta != nil {
		out, err := sizedOpts.MarshalAppend(dst, meta)
		if err != nil {
			return dst[:start], cmdError(ErrMalformed, "encoding message metadata", err, cmd)
		}
		dst = out
	} else {
		if len(rawMeta) == 0 {
			return dst[:start], cmdError(ErrMalformed, "empty message metadata", nil, cmd)
		}
		dst = append(dst, rawMeta...)
	}
	metaSize := uint64(len(dst) - metaAt - 4)
	total := uint64(len(dst)-start-4) + uint64(len(payload))
	if total > math.MaxUint32 {
		return dst[:start], cmdError(ErrFrameTooLarge, "payload frame of "+itoa(total)+" bytes", nil, cmd)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(total))
	binary.BigEndian.PutUint32(dst[metaAt:], uint32(metaSize))
	if sum == nil {
		crc := updateCRC(updateCRC(0, dst[metaAt:]), payload)
		sum = &crc
	}
	binary.BigEndian.PutUint32(dst[sumAt:], *sum)
	return dst, nil
}
