package wire

import (
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protobuf "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// rawFrame assembles [TOTAL_SIZE][CMD_SIZE][cmd][rest] without any checks.
func rawFrame(cmd, rest []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(cmd)+len(rest)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(cmd)))
	b = append(b, cmd...)
	return append(b, rest...)
}

func marshal(t testing.TB, m protobuf.Message) []byte {
	t.Helper()
	b, err := protobuf.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(m)
	require.NoError(t, err)
	return b
}

// withChecksum returns [0x0e01][CRC32C][METADATA_SIZE][meta][payload].
func withChecksum(meta, payload []byte) []byte {
	sec := binary.BigEndian.AppendUint32(nil, uint32(len(meta)))
	sec = append(sec, meta...)
	sec = append(sec, payload...)
	sum := crc32.Checksum(sec, castagnoli)
	out := binary.BigEndian.AppendUint16(nil, MagicChecksum)
	out = binary.BigEndian.AppendUint32(out, sum)
	return append(out, sec...)
}

func TestRoundTripEveryCommandRequiredOnly(t *testing.T) {
	for _, typ := range commandTypes() {
		if !HasCommandField(typ) {
			continue
		}
		cmd := sampleCommand(t, typ, false)
		b, err := AppendCommand(nil, cmd)
		require.NoError(t, err, typ)
		f, err := DecodeFrame(b, 0)
		require.NoError(t, err, typ)
		assert.True(t, protobuf.Equal(cmd, f.Cmd), typ)
		assert.Equal(t, len(b), f.Size)
	}
}

func TestRoundTripPayloadCompressionTypes(t *testing.T) {
	vals := proto.CompressionType_NONE.Descriptor().Values()
	require.Equal(t, 5, vals.Len())
	for i := 0; i < vals.Len(); i++ {
		ct := proto.CompressionType(vals.Get(i).Number())
		t.Run(ct.String(), func(t *testing.T) {
			meta := sampleMeta("p", uint64(i))
			meta.Compression = ct.Enum()
			meta.UncompressedSize = protobuf.Uint32(1234)
			payload := []byte("compressed bytes of " + ct.String())
			b, err := AppendPayloadFrame(nil, sendCommand(1, uint64(i)), meta, payload)
			require.NoError(t, err)
			f, err := DecodeFrame(b, 0)
			require.NoError(t, err)
			assert.True(t, protobuf.Equal(meta, f.Meta))
			assert.Equal(t, ct, f.Meta.GetCompression())
			assert.Equal(t, payload, f.Payload)
		})
	}
}

func TestRoundTripChunkMetadata(t *testing.T) {
	meta := sampleMeta("producer-a", 9)
	meta.Uuid = protobuf.String("producer-a-9")
	meta.NumChunksFromMsg = protobuf.Int32(3)
	meta.TotalChunkMsgSize = protobuf.Int32(10 << 20)
	meta.ChunkId = protobuf.Int32(2)
	meta.Compression = proto.CompressionType_ZSTD.Enum()
	meta.UncompressedSize = protobuf.Uint32(20 << 20)
	cmd := sendCommand(3, 9)
	cmd.Send.IsChunk = protobuf.Bool(true)
	b, err := AppendPayloadFrame(nil, cmd, meta, []byte("chunk-2"))
	require.NoError(t, err)
	f, err := DecodeFrame(b, 0)
	require.NoError(t, err)
	assert.True(t, protobuf.Equal(meta, f.Meta))
	assert.True(t, protobuf.Equal(cmd, f.Cmd))
	assert.Equal(t, "producer-a-9", f.Meta.GetUuid())
	assert.EqualValues(t, 2, f.Meta.GetChunkId())
	assert.EqualValues(t, 3, f.Meta.GetNumChunksFromMsg())
	assert.EqualValues(t, 10<<20, f.Meta.GetTotalChunkMsgSize())
}

func TestRoundTripAllMetadataFields(t *testing.T) {
	meta := &proto.MessageMetadata{}
	populate(meta.ProtoReflect(), 0, true)
	b, err := AppendPayloadFrame(nil, messageCommand(1, 2, 3), meta, []byte("p"))
	require.NoError(t, err)
	f, err := DecodeFrame(b, 0)
	require.NoError(t, err)
	assert.True(t, protobuf.Equal(meta, f.Meta))
	assert.Equal(t, marshal(t, meta), f.RawMeta)
}

func TestRoundTripEmptyPayload(t *testing.T) {
	b, err := AppendPayloadFrame(nil, sendCommand(1, 1), sampleMeta("p", 1), nil)
	require.NoError(t, err)
	f, err := DecodeFrame(b, 0)
	require.NoError(t, err)
	assert.True(t, f.HasPayload)
	assert.NotNil(t, f.Payload)
	assert.Empty(t, f.Payload)
}

func TestRoundTripBrokerEntryMetadata(t *testing.T) {
	meta := sampleMeta("p", 5)
	raw := marshal(t, meta)
	payload := []byte("stored entry")
	for _, bm := range []*proto.BrokerEntryMetadata{
		{BrokerTimestamp: protobuf.Uint64(1_700_000_000_123), Index: protobuf.Uint64(99)},
		{Index: protobuf.Uint64(0)},
		{}, // empty section: size 0
	} {
		hdr, err := AppendPayloadHeaderWithBrokerMeta(nil, messageCommand(4, 10, 20), bm, raw, payload)
		require.NoError(t, err)
		b := append(hdr, payload...)
		f, err := DecodeFrame(b, 0)
		require.NoError(t, err)
		require.NotNil(t, f.BrokerMeta)
		assert.True(t, protobuf.Equal(bm, f.BrokerMeta))
		assert.True(t, f.HasChecksum)
		assert.True(t, protobuf.Equal(meta, f.Meta))
		assert.Equal(t, raw, f.RawMeta)
		assert.Equal(t, payload, f.Payload)
	}
	// nil means no section, as AppendPayloadHeaderRaw.
	a, err := AppendPayloadHeaderWithBrokerMeta(nil, messageCommand(4, 10, 20), nil, raw, payload)
	require.NoError(t, err)
	b, err := AppendPayloadHeaderRaw(nil, messageCommand(4, 10, 20), raw, payload)
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

// Old peers send no checksum section: metadata size follows the command.
func TestDecodeWithoutChecksum(t *testing.T) {
	cmd := marshal(t, sendCommand(1, 2))
	meta := marshal(t, sampleMeta("p", 2))
	rest := binary.BigEndian.AppendUint32(nil, uint32(len(meta)))
	rest = append(rest, meta...)
	rest = append(rest, "old"...)
	f, err := DecodeFrame(rawFrame(cmd, rest), 0)
	require.NoError(t, err)
	assert.False(t, f.HasChecksum)
	assert.Equal(t, meta, f.RawMeta)
	assert.Equal(t, []byte("old"), f.Payload)

	// Also after a broker-entry-metadata section.
	bm := marshal(t, &proto.BrokerEntryMetadata{Index: protobuf.Uint64(3)})
	sec := binary.BigEndian.AppendUint16(nil, MagicBrokerEntryMetadata)
	sec = binary.BigEndian.AppendUint32(sec, uint32(len(bm)))
	sec = append(sec, bm...)
	f, err = DecodeFrame(rawFrame(cmd, append(sec, rest...)), 0)
	require.NoError(t, err)
	assert.False(t, f.HasChecksum)
	assert.EqualValues(t, 3, f.BrokerMeta.GetIndex())
	assert.Equal(t, []byte("old"), f.Payload)
}

func TestDecodeTruncatedAtEveryOffset(t *testing.T) {
	frame := validPayloadFrame(t)
	_, err := DecodeFrame(frame, 0)
	require.NoError(t, err)
	for i := 0; i < len(frame); i++ {
		_, err := DecodeFrame(frame[:i], 0)
		requireKind(t, err, ErrTruncated)
	}
	// One byte too many is a size error, not a silent success.
	_, err = DecodeFrame(append(frame[:len(frame):len(frame)], 0), 0)
	requireKind(t, err, ErrBadSize)
}

func TestDecodeSizeErrors(t *testing.T) {
	ping := marshal(t, &proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})

	t.Run("total above max", func(t *testing.T) {
		b := rawFrame(ping, make([]byte, 100))
		requireKind(t, func() error { _, err := DecodeFrame(b, 50); return err }(), ErrFrameTooLarge)
		_, err := DecodeFrame(b, len(b)-4)
		require.Error(t, err) // at the limit it is parsed (and rejected for its content)
		assert.NotErrorIs(t, err, ErrFrameTooLarge)
	})
	t.Run("total above default max", func(t *testing.T) {
		b := binary.BigEndian.AppendUint32(nil, DefaultMaxFrameSize+1)
		_, err := DecodeFrame(b, 0)
		requireKind(t, err, ErrFrameTooLarge)
	})
	t.Run("total below 4", func(t *testing.T) {
		for total := range uint32(4) {
			b := binary.BigEndian.AppendUint32(nil, total)
			b = append(b, make([]byte, total)...)
			_, err := DecodeFrame(b, 0)
			requireKind(t, err, ErrBadSize)
		}
	})
	t.Run("cmd size above total", func(t *testing.T) {
		b := rawFrame(ping, nil)
		binary.BigEndian.PutUint32(b[4:], uint32(len(ping)+1))
		_, err := DecodeFrame(b, 0)
		requireKind(t, err, ErrBadSize)
		binary.BigEndian.PutUint32(b[4:], 0xFFFFFFFF)
		_, err = DecodeFrame(b, 0)
		requireKind(t, err, ErrBadSize)
	})
	t.Run("empty command", func(t *testing.T) {
		_, err := DecodeFrame([]byte{0, 0, 0, 4, 0, 0, 0, 0}, 0)
		requireKind(t, err, ErrMalformed)
	})

	send := marshal(t, sendCommand(1, 2))
	meta := marshal(t, sampleMeta("p", 2))
	t.Run("metadata size overruns", func(t *testing.T) {
		for _, claim := range []uint32{uint32(len(meta)) + 3, 0x7FFFFFFF, 0xFFFFFFFF} {
			sec := binary.BigEndian.AppendUint32(nil, claim)
			sec = append(sec, meta...)
			sec = append(sec, "xy"...)
			sum := crc32.Checksum(sec, castagnoli)
			rest := binary.BigEndian.AppendUint16(nil, MagicChecksum)
			rest = binary.BigEndian.AppendUint32(rest, sum)
			_, err := DecodeFrame(rawFrame(send, append(rest, sec...)), 0)
			fe := requireKind(t, err, ErrBadSize)
			assert.Equal(t, proto.BaseCommand_SEND, fe.Type)
			assert.NotNil(t, fe.Cmd)
			// Without the checksum section too.
			_, err = DecodeFrame(rawFrame(send, sec), 0)
			requireKind(t, err, ErrBadSize)
		}
	})
	t.Run("sections cut short", func(t *testing.T) {
		for _, rest := range [][]byte{
			{0x00},                         // not even a metadata size
			{0x00, 0x00, 0x00},             // 3 bytes of metadata size
			{0x0e, 0x01, 0x00, 0x00, 0x00}, // checksum cut
			{0x0e, 0x02, 0x00},             // broker metadata header cut
			{0x0e, 0x02, 0x00, 0x00, 0x00, 0x09, 0x08}, // broker metadata overruns
			{0x0e, 0x01, 0x00, 0x00, 0x00, 0x00},       // checksum of nothing (0) then no metadata size
		} {
			_, err := DecodeFrame(rawFrame(send, rest), 0)
			requireKind(t, err, ErrBadSize)
		}
	})
}

func TestDecodeChecksumMismatch(t *testing.T) {
	frame := validPayloadFrame(t)
	f, err := DecodeFrame(frame, 0)
	require.NoError(t, err)
	payloadAt := len(frame) - len(f.Payload)
	metaAt := payloadAt - len(f.RawMeta)
	// Flip one bit in the payload, in the metadata, in the metadata size and
	// in the checksum itself.
	for _, at := range []int{len(frame) - 1, payloadAt, metaAt + 1, metaAt - 1, metaAt - 5} {
		for bit := range 8 {
			bad := append([]byte(nil), frame...)
			bad[at] ^= 1 << bit
			_, err := DecodeFrame(bad, 0)
			fe := requireKind(t, err, ErrChecksum)
			assert.Equal(t, proto.BaseCommand_SEND, fe.Type)
			require.NotNil(t, fe.Cmd, "a broker answers SendError with the command's ids")
			assert.EqualValues(t, 7, fe.Cmd.GetSend().GetProducerId())
			assert.EqualValues(t, 42, fe.Cmd.GetSend().GetSequenceId())
		}
	}
}

func TestDecodeUnknownCommand(t *testing.T) {
	t.Run("type outside the enum", func(t *testing.T) {
		// BaseCommand{type: 99, field 99: {1: 7}}: tag of field 99 bytes is
		// 99<<3|2 = 794 = 0x9a 0x06.
		cmd := []byte{0x08, 99, 0x9a, 0x06, 0x02, 0x08, 0x07}
		_, err := DecodeFrame(rawFrame(cmd, nil), 0)
		fe := requireKind(t, err, ErrUnknownCommand)
		assert.EqualValues(t, 99, fe.Type)
		assert.False(t, fe.HasRequestID, "layout of an unknown command is unknown")
		assert.Contains(t, err.Error(), "type 99")
	})
	t.Run("type with a huge number", func(t *testing.T) {
		cmd := []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0x07} // 2^31-1
		_, err := DecodeFrame(rawFrame(cmd, nil), 0)
		fe := requireKind(t, err, ErrUnknownCommand)
		assert.EqualValues(t, 0x7fffffff, fe.Type)
	})
	t.Run("transaction commands decode", func(t *testing.T) {
		// ADD_PARTITION_TO_TXN = 52: {request_id(1): 11, txnid_least_bits(2):
		// 3, partitions(4): "n"}; field 52 bytes tag = 52<<3|2 = 418 = 0xa2 0x03.
		inner := []byte{0x08, 11, 0x10, 3, 0x22, 0x01, 'n'}
		cmd := append([]byte{0x08, 52, 0xa2, 0x03, byte(len(inner))}, inner...)
		f, err := DecodeFrame(rawFrame(cmd, nil), 0)
		require.NoError(t, err)
		add := f.Cmd.GetAddPartitionToTxn()
		require.NotNil(t, add)
		assert.EqualValues(t, 11, add.GetRequestId())
		assert.EqualValues(t, 3, add.GetTxnidLeastBits())
		assert.Equal(t, []string{"n"}, add.GetPartitions())
	})
	t.Run("also with a payload", func(t *testing.T) {
		cmd := []byte{0x08, 99}
		_, err := DecodeFrame(rawFrame(cmd, withChecksum(marshal(t, sampleMeta("p", 1)), nil)), 0)
		requireKind(t, err, ErrUnknownCommand)
	})
}

func TestDecodeMalformed(t *testing.T) {
	cases := map[string][]byte{
		"garbage":             {0xff, 0xff, 0xff},
		"truncated varint":    {0x08, 0x80},
		"no type":             {0x92, 0x01, 0x00},
		"field missing":       {0x08, 0x12},                         // PING without ping
		"wrong field":         {0x08, 0x12, 0x9a, 0x01, 0x00},       // PING with pong
		"required missing":    {0x08, 0x06, 0x32, 0x02, 0x08, 0x01}, // SEND without sequence_id
		"length overrun":      {0x08, 0x12, 0x92, 0x01, 0x05},
		"bad wire type type":  {0x0a, 0x01, 0x12},
		"group end unmatched": {0x08, 0x12, 0x92, 0x01, 0x00, 0x0c},
	}
	for name, cmd := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeFrame(rawFrame(cmd, nil), 0)
			requireKind(t, err, ErrMalformed)
		})
	}

	t.Run("required missing keeps request id", func(t *testing.T) {
		// LOOKUP {request_id: 5} without the required topic.
		cmd := []byte{0x08, 23, 0xba, 0x01, 0x02, 0x10, 0x05}
		_, err := DecodeFrame(rawFrame(cmd, nil), 0)
		fe := requireKind(t, err, ErrMalformed)
		assert.Equal(t, proto.BaseCommand_LOOKUP, fe.Type)
		assert.True(t, fe.HasRequestID)
		assert.EqualValues(t, 5, fe.RequestID)
	})

	send := marshal(t, sendCommand(1, 2))
	t.Run("metadata garbage", func(t *testing.T) {
		_, err := DecodeFrame(rawFrame(send, withChecksum([]byte{0xff, 0xff}, []byte("x"))), 0)
		fe := requireKind(t, err, ErrMalformed)
		assert.NotNil(t, fe.Cmd)
	})
	t.Run("metadata required missing", func(t *testing.T) {
		meta := marshal(t, &proto.MessageMetadata{ProducerName: protobuf.String("p")})
		_, err := DecodeFrame(rawFrame(send, withChecksum(meta, nil)), 0)
		requireKind(t, err, ErrMalformed)
		_, err = DecodeFrame(rawFrame(send, withChecksum(nil, nil)), 0)
		requireKind(t, err, ErrMalformed)
	})
	t.Run("broker metadata garbage", func(t *testing.T) {
		rest := []byte{0x0e, 0x02, 0x00, 0x00, 0x00, 0x01, 0xff}
		rest = append(rest, withChecksum(marshal(t, sampleMeta("p", 1)), nil)...)
		_, err := DecodeFrame(rawFrame(send, rest), 0)
		requireKind(t, err, ErrMalformed)
	})
	t.Run("deep nesting", func(t *testing.T) {
		nested := func(depth int) []byte {
			cmd := messageCommand(1, 0, 0)
			id := cmd.Message.MessageId
			for i := range depth {
				id.FirstChunkMessageId = &proto.MessageIdData{
					LedgerId: protobuf.Uint64(uint64(i)), EntryId: protobuf.Uint64(1),
				}
				id = id.FirstChunkMessageId
			}
			return marshal(t, cmd)
		}
		_, err := DecodeFrame(rawFrame(nested(10), nil), 0)
		require.NoError(t, err)
		_, err = DecodeFrame(rawFrame(nested(100), nil), 0)
		requireKind(t, err, ErrMalformed)
	})
}

// bytesAllocated reports the bytes allocated by f.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestHugeClaimedSizesDoNotAllocate(t *testing.T) {
	send := marshal(t, sendCommand(1, 2))
	huge := []byte{0xff, 0xff, 0xff, 0xff}
	cases := map[string][]byte{
		"total":          append(append([]byte{}, huge...), make([]byte, 16)...),
		"cmd size":       append([]byte{0, 0, 0, 8}, append(huge, 0, 0, 0, 0)...),
		"metadata size":  rawFrame(send, append([]byte{0x0e, 0x01, 0, 0, 0, 0}, huge...)),
		"broker section": rawFrame(send, append([]byte{0x0e, 0x02}, huge...)),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeFrame(b, 0)
			require.Error(t, err)
			allocs := testing.AllocsPerRun(100, func() { _, _ = DecodeFrame(b, 0) })
			assert.LessOrEqual(t, allocs, 20.0)
			n := bytesAllocated(func() {
				for range 100 {
					_, _ = DecodeFrame(b, 0)
				}
			})
			assert.Less(t, n, uint64(256<<10), "bytes allocated by 100 decodes")
		})
	}
}
