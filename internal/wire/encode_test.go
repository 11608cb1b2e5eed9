package wire

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// crc32cBitwise is a reference CRC32C written from the definition:
// reflected polynomial 0x82F63B78, initial value and final xor 0xFFFFFFFF.
func crc32cBitwise(data []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range data {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func TestCRC32CReferenceVector(t *testing.T) {
	// The check value of CRC-32C (iSCSI, RFC 3720 appendix B.4).
	assert.Equal(t, uint32(0xE3069283), crc32cBitwise([]byte("123456789")))
	assert.Equal(t, uint32(0xE3069283), crc32.Checksum([]byte("123456789"), castagnoli))
	assert.Equal(t, uint32(0), crc32.Checksum(nil, castagnoli))
}

// TestGoldenPing derives a PING frame by hand.
//
// BaseCommand{type: PING, ping: {}}:
//   - field 1 (type), wire type 0 (varint): tag = 1<<3|0 = 0x08; PING = 18 = 0x12.
//   - field 18 (ping), wire type 2 (bytes): tag = 18<<3|2 = 146, as a varint
//     0x92 0x01 (146 = 0b1_0010010: low 7 bits 0x12 with the continuation bit
//     = 0x92, then 146>>7 = 1); length of the empty CommandPing = 0x00.
//
// So the command is 08 12 92 01 00 (5 bytes), CMD_SIZE = 5 and
// TOTAL_SIZE = 4 + 5 = 9.
func TestGoldenPing(t *testing.T) {
	want := []byte{
		0x00, 0x00, 0x00, 0x09, // TOTAL_SIZE
		0x00, 0x00, 0x00, 0x05, // CMD_SIZE
		0x08, 0x12, 0x92, 0x01, 0x00, // BaseCommand
	}
	cmd := &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}}
	got, err := AppendCommand(nil, cmd)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	f, err := DecodeFrame(want, 0)
	require.NoError(t, err)
	assert.True(t, protobuf.Equal(cmd, f.Cmd))
	assert.False(t, f.HasPayload)
	assert.Equal(t, 13, f.Size)
}

// goldenSend is derived by hand.
//
// Command BaseCommand{type: SEND, send: {producer_id: 1, sequence_id: 2}}:
//   - CommandSend: field 1 varint 1 = 08 01; field 2 varint 2 = 10 02 (4 bytes).
//   - BaseCommand: field 1 varint SEND=6 = 08 06; field 6 bytes: tag 6<<3|2 =
//     0x32, length 04, then the 4 bytes above. 8 bytes in all.
//
// Metadata MessageMetadata{producer_name: "p", sequence_id: 2, publish_time: 3}:
// field 1 bytes: 0a 01 70 ('p'); field 2 varint: 10 02; field 3 varint: 18 03
// (7 bytes). Payload "hi" = 68 69.
//
// The checksum covers METADATA_SIZE, metadata and payload:
// 00 00 00 07 0a 01 70 10 02 18 03 68 69, whose CRC32C is 0x41955213
// (checked against crc32cBitwise, itself checked on "123456789").
// TOTAL_SIZE = 4 (CMD_SIZE) + 8 + 2 (magic) + 4 (checksum) + 4 + 7 + 2 = 31.
var goldenSend = []byte{
	0x00, 0x00, 0x00, 0x1f, // TOTAL_SIZE 31
	0x00, 0x00, 0x00, 0x08, // CMD_SIZE 8
	0x08, 0x06, 0x32, 0x04, 0x08, 0x01, 0x10, 0x02, // BaseCommand
	0x0e, 0x01, // magic
	0x41, 0x95, 0x52, 0x13, // CRC32C
	0x00, 0x00, 0x00, 0x07, // METADATA_SIZE
	0x0a, 0x01, 0x70, 0x10, 0x02, 0x18, 0x03, // MessageMetadata
	0x68, 0x69, // payload
}

func TestGoldenSend(t *testing.T) {
	assert.Equal(t, uint32(0x41955213), crc32cBitwise(goldenSend[22:]))

	cmd := sendCommand(1, 2)
	meta := &proto.MessageMetadata{
		ProducerName: protobuf.String("p"),
		SequenceId:   protobuf.Uint64(2),
		PublishTime:  protobuf.Uint64(3),
	}
	got, err := AppendPayloadFrame(nil, cmd, meta, []byte("hi"))
	require.NoError(t, err)
	assert.Equal(t, goldenSend, got)

	// The header form stops right before the payload.
	hdr, err := AppendPayloadHeader(nil, cmd, meta, []byte("hi"))
	require.NoError(t, err)
	assert.Equal(t, goldenSend[:len(goldenSend)-2], hdr)

	// And the raw-metadata form gives the same bytes.
	raw, err := AppendPayloadHeaderRaw(nil, cmd, goldenSend[26:33], []byte("hi"))
	require.NoError(t, err)
	assert.Equal(t, hdr, raw)

	f, err := DecodeFrame(goldenSend, 0)
	require.NoError(t, err)
	assert.True(t, protobuf.Equal(cmd, f.Cmd))
	assert.True(t, protobuf.Equal(meta, f.Meta))
	assert.True(t, f.HasPayload)
	assert.True(t, f.HasChecksum)
	assert.Nil(t, f.BrokerMeta)
	assert.Equal(t, goldenSend[26:33], f.RawMeta)
	assert.Equal(t, []byte("hi"), f.Payload)

	// The checksum as received, given back, makes the same header; a
	// given checksum is written as it is, not computed.
	assert.Equal(t, binary.BigEndian.Uint32(goldenSend[18:22]), f.Checksum)
	summed, err := AppendPayloadHeaderRawSum(nil, cmd, f.RawMeta, f.Payload, f.Checksum)
	require.NoError(t, err)
	assert.Equal(t, hdr, summed)
	other, err := AppendPayloadHeaderRawSum(nil, cmd, f.RawMeta, f.Payload, 0x01020304)
	require.NoError(t, err)
	assert.Equal(t, uint32(0x01020304), binary.BigEndian.Uint32(other[18:22]))
}

// The broker-entry-metadata section goes between command and checksum:
// BrokerEntryMetadata{broker_timestamp: 5, index: 9} = 08 05 10 09.
func TestGoldenBrokerEntryMetadata(t *testing.T) {
	bm := &proto.BrokerEntryMetadata{BrokerTimestamp: protobuf.Uint64(5), Index: protobuf.Uint64(9)}
	got, err := AppendPayloadHeaderWithBrokerMeta(nil, sendCommand(1, 2), bm, goldenSend[26:33], []byte("hi"))
	require.NoError(t, err)
	got = append(got, "hi"...)
	want := append([]byte{0x00, 0x00, 0x00, 0x29}, goldenSend[4:16]...) // TOTAL_SIZE 31+10
	want = append(want, 0x0e, 0x02, 0x00, 0x00, 0x00, 0x04, 0x08, 0x05, 0x10, 0x09)
	want = append(want, goldenSend[16:]...) // the checksum does not cover the section
	assert.Equal(t, want, got)

	f, err := DecodeFrame(got, 0)
	require.NoError(t, err)
	assert.True(t, protobuf.Equal(bm, f.BrokerMeta))
	assert.Equal(t, []byte("hi"), f.Payload)
}

func TestAppendKeepsPrefix(t *testing.T) {
	prefix := []byte("prefix")
	dst := append(make([]byte, 0, 64), prefix...)
	out, err := AppendCommand(dst, &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	require.NoError(t, err)
	assert.Equal(t, prefix, out[:len(prefix)])
	_, err = DecodeFrame(out[len(prefix):], 0)
	require.NoError(t, err)

	out, err = AppendPayloadFrame(dst, sendCommand(1, 2), sampleMeta("p", 2), []byte("x"))
	require.NoError(t, err)
	assert.Equal(t, prefix, out[:len(prefix)])
	f, err := DecodeFrame(out[len(prefix):], 0)
	require.NoError(t, err)
	assert.Equal(t, []byte("x"), f.Payload)
}

func TestEncodeErrors(t *testing.T) {
	dst := []byte("keep")
	cases := []struct {
		name string
		cmd  *proto.BaseCommand
		kind error
	}{
		{"nil", nil, ErrMalformed},
		{"no type", &proto.BaseCommand{Ping: &proto.CommandPing{}}, ErrMalformed},
		{"field unset", &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum()}, ErrMalformed},
		{"other field set", &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Pong: &proto.CommandPong{}}, ErrMalformed},
		{"type not in enum", &proto.BaseCommand{Type: proto.BaseCommand_Type(99).Enum()}, ErrUnknownCommand},
		{"type field unset", &proto.BaseCommand{Type: proto.BaseCommand_END_TXN.Enum()}, ErrMalformed},
		{"required field missing", &proto.BaseCommand{
			Type: proto.BaseCommand_SEND.Enum(), Send: &proto.CommandSend{ProducerId: protobuf.Uint64(1)},
		}, ErrMalformed},
		{"nested required field missing", &proto.BaseCommand{
			Type: proto.BaseCommand_MESSAGE.Enum(),
			Message: &proto.CommandMessage{
				ConsumerId: protobuf.Uint64(1), MessageId: &proto.MessageIdData{LedgerId: protobuf.Uint64(1)},
			},
		}, ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := AppendCommand(dst, c.cmd)
			requireKind(t, err, c.kind)
			assert.Equal(t, []byte("keep"), out)
			out, err = AppendPayloadFrame(dst, c.cmd, sampleMeta("p", 1), []byte("x"))
			requireKind(t, err, c.kind)
			assert.Equal(t, []byte("keep"), out)
		})
	}

	// Metadata problems.
	out, err := AppendPayloadHeader(dst, sendCommand(1, 1), nil, nil)
	requireKind(t, err, ErrMalformed)
	assert.Equal(t, []byte("keep"), out)
	out, err = AppendPayloadHeader(dst, sendCommand(1, 1), &proto.MessageMetadata{ProducerName: protobuf.String("p")}, nil)
	fe := requireKind(t, err, ErrMalformed)
	assert.Equal(t, proto.BaseCommand_SEND, fe.Type)
	assert.Equal(t, []byte("keep"), out)
	out, err = AppendPayloadHeaderRaw(dst, sendCommand(1, 1), nil, nil)
	requireKind(t, err, ErrMalformed)
	assert.Equal(t, []byte("keep"), out)
}

func TestEncodeDeterministic(t *testing.T) {
	meta := sampleMeta("p", 1)
	populate(meta.ProtoReflect(), 0, true)
	a, err := AppendPayloadFrame(nil, sendCommand(1, 1), meta, []byte("x"))
	require.NoError(t, err)
	for range 20 {
		b, err := AppendPayloadFrame(nil, sendCommand(1, 1), meta, []byte("x"))
		require.NoError(t, err)
		require.Equal(t, a, b)
	}
}
