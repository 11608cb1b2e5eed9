package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protobuf "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pulsargo/sdk/internal/proto"
)

// In Pulsar's protocol a BaseCommand field's number equals the type it
// carries; NewCommand and decoding rely on it.
func TestCommandFieldNumbersAreTypes(t *testing.T) {
	fields := baseCommandDesc.Fields()
	n := 0
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Number() == 1 {
			continue
		}
		n++
		assert.Equal(t, protoreflect.MessageKind, fd.Kind(), "field %s", fd.Name())
		assert.NotEmpty(t, typeName(proto.BaseCommand_Type(fd.Number())), "field %s has no enum value", fd.Name())
		assert.True(t, HasCommandField(proto.BaseCommand_Type(fd.Number())))
	}
	assert.Equal(t, 58, n) // types 2..40, 50..68
}

func TestNewCommandEveryType(t *testing.T) {
	supported := 0
	for _, typ := range commandTypes() {
		if !HasCommandField(typ) {
			_, err := NewCommand(typ, &proto.CommandPing{})
			fe := requireKind(t, err, ErrUnknownCommand)
			assert.Equal(t, typ, fe.Type)
			continue
		}
		supported++
		t.Run(typ.String(), func(t *testing.T) {
			inner := fieldOf(typ).mt.New()
			populate(inner, 0, true)
			cmd, err := NewCommand(typ, inner.Interface())
			require.NoError(t, err)
			assert.Equal(t, typ, cmd.GetType())
			assert.Same(t, inner.Interface(), Payload(cmd), "Payload returns the message set")
			assert.Equal(t, typ.String(), CommandType(cmd))

			byMsg, err := CommandFor(inner.Interface())
			require.NoError(t, err)
			assert.True(t, protobuf.Equal(cmd, byMsg))

			frame, err := AppendCommand(nil, cmd)
			require.NoError(t, err)
			f, err := DecodeFrame(frame, 0)
			require.NoError(t, err)
			assert.True(t, protobuf.Equal(cmd, f.Cmd), "round trip %v", typ)
			assert.True(t, protobuf.Equal(inner.Interface(), Payload(f.Cmd)))

			// A wrong message type is refused, never panics.
			wrong := protoreflect.ProtoMessage(&proto.CommandPing{})
			if typ == proto.BaseCommand_PING {
				wrong = &proto.CommandPong{}
			}
			_, err = NewCommand(typ, wrong)
			requireKind(t, err, ErrMalformed)
		})
	}
	assert.Equal(t, 58, supported)
}

func TestNewCommandNil(t *testing.T) {
	_, err := NewCommand(proto.BaseCommand_PING, nil)
	requireKind(t, err, ErrMalformed)
	_, err = NewCommand(proto.BaseCommand_PING, (*proto.CommandPing)(nil))
	requireKind(t, err, ErrMalformed)
	_, err = CommandFor(nil)
	requireKind(t, err, ErrMalformed)
	_, err = CommandFor(&proto.MessageIdData{})
	requireKind(t, err, ErrUnknownCommand)
	_, err = NewCommand(proto.BaseCommand_Type(1000), &proto.CommandPing{})
	requireKind(t, err, ErrUnknownCommand)
	_, err = NewCommand(proto.BaseCommand_Type(-1), &proto.CommandPing{})
	requireKind(t, err, ErrUnknownCommand)
}

func TestPayloadAndCommandType(t *testing.T) {
	assert.Nil(t, Payload(nil))
	assert.Nil(t, Payload(&proto.BaseCommand{}))
	assert.Nil(t, Payload(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum()}))
	assert.Nil(t, Payload(&proto.BaseCommand{Type: proto.BaseCommand_END_TXN.Enum()}))

	assert.Equal(t, "<nil>", CommandType(nil))
	assert.Equal(t, "<no type>", CommandType(&proto.BaseCommand{}))
	assert.Equal(t, "UNKNOWN(99)", CommandType(&proto.BaseCommand{Type: proto.BaseCommand_Type(99).Enum()}))
	assert.Equal(t, "LOOKUP", CommandType(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum()}))
}

func TestRequestID(t *testing.T) {
	lookup, err := NewCommand(proto.BaseCommand_LOOKUP, &proto.CommandLookupTopic{
		Topic: protobuf.String("persistent://a/b/c"), RequestId: protobuf.Uint64(17),
	})
	require.NoError(t, err)
	id, ok := RequestID(lookup)
	assert.True(t, ok)
	assert.EqualValues(t, 17, id)

	// Commands without a request_id, or with it unset.
	_, ok = RequestID(&proto.BaseCommand{Type: proto.BaseCommand_PING.Enum(), Ping: &proto.CommandPing{}})
	assert.False(t, ok)
	_, ok = RequestID(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum(), LookupTopic: &proto.CommandLookupTopic{}})
	assert.False(t, ok)
	_, ok = RequestID(&proto.BaseCommand{Type: proto.BaseCommand_LOOKUP.Enum()})
	assert.False(t, ok)
	_, ok = RequestID(nil)
	assert.False(t, ok)

	// CommandAck has an optional request_id at field 8.
	ack := &proto.BaseCommand{Type: proto.BaseCommand_ACK.Enum(), Ack: &proto.CommandAck{RequestId: protobuf.Uint64(5)}}
	id, ok = RequestID(ack)
	assert.True(t, ok)
	assert.EqualValues(t, 5, id)
}

func TestScanUnknownVarint(t *testing.T) {
	// field 56 (END_TXN) = {1: 300, 2: 9}, then field 56 again = {1: 301}
	b := []byte{0xc2, 0x03, 0x05, 0x08, 0xac, 0x02, 0x10, 0x09, 0xc2, 0x03, 0x03, 0x08, 0xad, 0x02}
	v, ok := scanUnknownVarint(b, 56, 1)
	assert.True(t, ok)
	assert.EqualValues(t, 301, v)
	_, ok = scanUnknownVarint(b, 57, 1)
	assert.False(t, ok)
	// Garbage never panics.
	for i := range b {
		scanUnknownVarint(b[:i], 56, 1)
	}
	scanUnknownVarint([]byte{0xc2, 0x03, 0xff, 0xff}, 56, 1)
}

// protobuf-go treats proto2 enums as open: a type number outside the enum
// decodes into the Type field rather than failing or landing in the unknown
// fields. checkCommand handles both.
func TestUnknownTypeNumberDecoding(t *testing.T) {
	var cmd proto.BaseCommand
	require.NoError(t, protobuf.Unmarshal([]byte{0x08, 99}, &cmd))
	require.NotNil(t, cmd.Type)
	assert.EqualValues(t, 99, cmd.GetType())
	fe := requireKind(t, checkCommand(&cmd), ErrUnknownCommand)
	assert.EqualValues(t, 99, fe.Type)

	// The closed-enum behaviour: the number only in the unknown fields.
	closed := &proto.BaseCommand{}
	closed.ProtoReflect().SetUnknown([]byte{0x10, 0x01, 0x08, 99})
	fe = requireKind(t, checkCommand(closed), ErrUnknownCommand)
	assert.EqualValues(t, 99, fe.Type)

	// Unknown fields without a type varint: just malformed.
	noType := &proto.BaseCommand{}
	noType.ProtoReflect().SetUnknown([]byte{0x0a, 0x01, 0x12})
	requireKind(t, checkCommand(noType), ErrMalformed)
	for _, b := range [][]byte{{0x08}, {0x08, 0x80}, {0xff}, {0x0a, 0x05}} {
		topLevelVarint(b, 1) // never panics
	}
}
