package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
	protobuf "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pulsargo/sdk/internal/proto"
)

// populate sets fields of m to deterministic non-default values: every field
// while depth < 3, only required fields below that (which ends the
// MessageIdData.first_chunk_message_id recursion). With all false it sets
// required fields only.
func populate(m protoreflect.Message, depth int, all bool) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Cardinality() != protoreflect.Required && (!all || depth >= 3) {
			continue
		}
		if fd.IsList() {
			list := m.Mutable(fd).List()
			for j := 0; j < 2; j++ {
				if fd.Kind() == protoreflect.MessageKind {
					e := list.NewElement()
					populate(e.Message(), depth+1, all)
					list.Append(e)
				} else {
					list.Append(scalarValue(fd, j))
				}
			}
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			populate(m.Mutable(fd).Message(), depth+1, all)
			continue
		}
		m.Set(fd, scalarValue(fd, 0))
	}
}

func scalarValue(fd protoreflect.FieldDescriptor, j int) protoreflect.Value {
	n := int64(fd.Number()) + int64(j)*100 + 1
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(vals.Len() - 1 - j%vals.Len()).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(n))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-n << 40)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n) << 40)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n) + 0.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(n) + 0.25)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(string(fd.Name()) + "-ü")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{byte(n), 0, 0xff})
	}
	panic("unhandled kind " + fd.Kind().String())
}

// commandTypes lists every BaseCommand_Type enum value.
func commandTypes() []proto.BaseCommand_Type {
	vals := proto.BaseCommand_PING.Descriptor().Values()
	out := make([]proto.BaseCommand_Type, vals.Len())
	for i := range out {
		out[i] = proto.BaseCommand_Type(vals.Get(i).Number())
	}
	return out
}

// sampleCommand builds a command of type t with its message populated.
func sampleCommand(t *testing.T, typ proto.BaseCommand_Type, all bool) *proto.BaseCommand {
	t.Helper()
	cf := fieldOf(typ)
	require.NotNil(t, cf, "no field for %v", typ)
	msg := cf.mt.New()
	populate(msg, 0, all)
	cmd, err := NewCommand(typ, msg.Interface())
	require.NoError(t, err)
	return cmd
}

func sendCommand(producerID, seq uint64) *proto.BaseCommand {
	return &proto.BaseCommand{
		Type: proto.BaseCommand_SEND.Enum(),
		Send: &proto.CommandSend{ProducerId: protobuf.Uint64(producerID), SequenceId: protobuf.Uint64(seq)},
	}
}

func messageCommand(consumerID, ledger, entry uint64) *proto.BaseCommand {
	return &proto.BaseCommand{
		Type: proto.BaseCommand_MESSAGE.Enum(),
		Message: &proto.CommandMessage{
			ConsumerId: protobuf.Uint64(consumerID),
			MessageId:  &proto.MessageIdData{LedgerId: protobuf.Uint64(ledger), EntryId: protobuf.Uint64(entry)},
		},
	}
}

func sampleMeta(producer string, seq uint64) *proto.MessageMetadata {
	return &proto.MessageMetadata{
		ProducerName: protobuf.String(producer),
		SequenceId:   protobuf.Uint64(seq),
		PublishTime:  protobuf.Uint64(1_700_000_000_000),
	}
}

// validPayloadFrame is a SEND frame with properties, key and a payload.
func validPayloadFrame(t testing.TB) []byte {
	t.Helper()
	meta := sampleMeta("producer-1", 42)
	meta.PartitionKey = protobuf.String("key")
	meta.Properties = []*proto.KeyValue{{Key: protobuf.String("a"), Value: protobuf.String("b")}}
	b, err := AppendPayloadFrame(nil, sendCommand(7, 42), meta, []byte("hello, pulsar"))
	require.NoError(t, err)
	return b
}

// requireKind asserts that err is a *FrameError of the given kind.
func requireKind(t testing.TB, err error, kind error) *FrameError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, kind)
	var fe *FrameError
	require.ErrorAs(t, err, &fe)
	return fe
}
