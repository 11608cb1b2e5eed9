package wire

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pulsargo/sdk/internal/proto"
)

// commandField describes the BaseCommand field that carries one command type.
// In the Pulsar protocol the field number equals the type's enum number.
type commandField struct {
	fd protoreflect.FieldDescriptor
	mt protoreflect.MessageType
	// requestID is the request_id field of the command message, or nil.
	requestID protoreflect.FieldDescriptor
}

var (
	baseCommandDesc = (&proto.BaseCommand{}).ProtoReflect().Descriptor()
	commandTypeEnum = proto.BaseCommand_PING.Descriptor()

	// commandFields is indexed by command type; nil where BaseCommand has no
	// field of that number.
	commandFields, commandByMessage = buildCommandFields()
)

func buildCommandFields() ([]*commandField, map[protoreflect.FullName]*commandField) {
	fields := baseCommandDesc.Fields()
	maxNum := 0
	for i := 0; i < fields.Len(); i++ {
		maxNum = max(maxNum, int(fields.Get(i).Number()))
	}
	byNum := make([]*commandField, maxNum+1)
	byName := make(map[protoreflect.FullName]*commandField, fields.Len())
	base := (&proto.BaseCommand{}).ProtoReflect()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || fd.Cardinality() == protoreflect.Repeated {
			continue // the type field itself
		}
		cf := &commandField{fd: fd, mt: base.NewField(fd).Message().Type()}
		if rf := fd.Message().Fields().ByName("request_id"); rf != nil && rf.Kind() == protoreflect.Uint64Kind {
			cf.requestID = rf
		}
		byNum[fd.Number()] = cf
		byName[fd.Message().FullName()] = cf
	}
	return byNum, byName
}

// fieldOf returns the BaseCommand field for command type t, or nil.
func fieldOf(t proto.BaseCommand_Type) *commandField {
	if t < 0 || int(t) >= len(commandFields) {
		return nil
	}
	return commandFields[t]
}

// unsupportedRequestIDField gives, for the Pulsar commands that our
// BaseCommand has no field for (the transaction-buffer commands), the field
// number of request_id inside the command message (per upstream
// PulsarApi.proto).
var unsupportedRequestIDField = map[proto.BaseCommand_Type]protowire.Number{
	proto.BaseCommand_ADD_PARTITION_TO_TXN:             1,
	proto.BaseCommand_ADD_PARTITION_TO_TXN_RESPONSE:    1,
	proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN:          1,
	proto.BaseCommand_ADD_SUBSCRIPTION_TO_TXN_RESPONSE: 1,
	proto.BaseCommand_END_TXN:                          1,
	proto.BaseCommand_END_TXN_RESPONSE:                 1,
	proto.BaseCommand_END_TXN_ON_PARTITION:             1,
	proto.BaseCommand_END_TXN_ON_PARTITION_RESPONSE:    1,
	proto.BaseCommand_END_TXN_ON_SUBSCRIPTION:          1,
	proto.BaseCommand_END_TXN_ON_SUBSCRIPTION_RESPONSE: 1,
}

// typeName returns the enum name of t, or "" if t is not in the enum.
func typeName(t proto.BaseCommand_Type) string {
	if v := commandTypeEnum.Values().ByNumber(protoreflect.EnumNumber(t)); v != nil {
		return string(v.Name())
	}
	return ""
}

// CommandType returns the name of cmd's type ("PING", "SEND", ...) for logs
// and errors: "UNKNOWN(<n>)" for a number outside the enum, "<no type>" when
// the type field is unset and "<nil>" for a nil command.
func CommandType(cmd *proto.BaseCommand) string {
	switch {
	case cmd == nil:
		return "<nil>"
	case cmd.Type == nil:
		return "<no type>"
	}
	if name := typeName(cmd.GetType()); name != "" {
		return name
	}
	return "UNKNOWN(" + strconv.Itoa(int(cmd.GetType())) + ")"
}

// HasCommandField reports whether our BaseCommand has a field for type t, that
// is, whether commands of type t can be built, encoded and decoded here.
func HasCommandField(t proto.BaseCommand_Type) bool {
	return fieldOf(t) != nil
}

// NewCommand returns a BaseCommand of type t whose field for t is msg (not
// copied). msg must be the message type of that field, e.g.
// NewCommand(proto.BaseCommand_LOOKUP, &proto.CommandLookupTopic{...}).
// It fails with ErrUnknownCommand when BaseCommand has no field for t and with
// ErrMalformed when msg is nil or of another type. It does not check msg's
// required fields; encoding does.
func NewCommand(t proto.BaseCommand_Type, msg protoreflect.ProtoMessage) (*proto.BaseCommand, error) {
	cf := fieldOf(t)
	if cf == nil {
		return nil, &FrameError{Kind: ErrUnknownCommand, Msg: "no BaseCommand field for this type", Type: t}
	}
	if msg == nil {
		return nil, &FrameError{Kind: ErrMalformed, Msg: "nil command message", Type: t}
	}
	m := msg.ProtoReflect()
	if !m.IsValid() {
		return nil, &FrameError{Kind: ErrMalformed, Msg: "nil command message", Type: t}
	}
	if m.Type() != cf.mt {
		return nil, &FrameError{
			Kind: ErrMalformed,
			Msg:  "message " + string(m.Descriptor().FullName()) + " does not fit field " + string(cf.fd.Name()),
			Type: t,
		}
	}
	cmd := &proto.BaseCommand{Type: t.Enum()}
	cmd.ProtoReflect().Set(cf.fd, protoreflect.ValueOfMessage(m))
	return cmd, nil
}

// CommandFor is NewCommand with the type inferred from msg's message type
// (each command message has exactly one BaseCommand field):
// CommandFor(&proto.CommandPing{}) is a PING command.
func CommandFor(msg protoreflect.ProtoMessage) (*proto.BaseCommand, error) {
	if msg == nil {
		return nil, &FrameError{Kind: ErrMalformed, Msg: "nil command message"}
	}
	cf := commandByMessage[msg.ProtoReflect().Descriptor().FullName()]
	if cf == nil {
		return nil, &FrameError{
			Kind: ErrUnknownCommand,
			Msg:  "message " + string(msg.ProtoReflect().Descriptor().FullName()) + " is not a command",
		}
	}
	return NewCommand(proto.BaseCommand_Type(cf.fd.Number()), msg)
}

// Payload returns the command message that cmd's type selects (for a SEND
// command, cmd.Send as a *proto.CommandSend), or nil when cmd is nil, has no
// field for its type, or that field is unset.
func Payload(cmd *proto.BaseCommand) protoreflect.ProtoMessage {
	if cmd == nil || cmd.Type == nil {
		return nil
	}
	cf := fieldOf(cmd.GetType())
	if cf == nil {
		return nil
	}
	m := cmd.ProtoReflect()
	if !m.Has(cf.fd) {
		return nil
	}
	return m.Get(cf.fd).Message().Interface()
}

// RequestID returns the request_id of cmd's command message, if that message
// has one and it is set. For the Pulsar commands our BaseCommand has no field
// for (the transaction-buffer commands) it is read from the unknown fields
// kept by decoding, so that a broker can answer them with an error; for types
// outside the enum no layout is known and ok is false.
func RequestID(cmd *proto.BaseCommand) (id uint64, ok bool) {
	if cmd == nil || cmd.Type == nil {
		return 0, false
	}
	t := cmd.GetType()
	if cf := fieldOf(t); cf != nil {
		m := cmd.ProtoReflect()
		if cf.requestID == nil || !m.Has(cf.fd) {
			return 0, false
		}
		inner := m.Get(cf.fd).Message()
		if !inner.Has(cf.requestID) {
			return 0, false
		}
		return inner.Get(cf.requestID).Uint(), true
	}
	num, known := unsupportedRequestIDField[t]
	if !known {
		return 0, false
	}
	return scanUnknownVarint(cmd.ProtoReflect().GetUnknown(), protowire.Number(t), num)
}

// scanUnknownVarint looks in raw protobuf bytes b for embedded messages of
// field number outer and returns the last varint of field number inner found
// in them (protobuf merge semantics).
func scanUnknownVarint(b []byte, outer, inner protowire.Number) (v uint64, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return v, ok
		}
		b = b[n:]
		if num != outer || typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return v, ok
			}
			b = b[n:]
			continue
		}
		msg, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return v, ok
		}
		b = b[n:]
		if x, found := topLevelVarint(msg, inner); found {
			v, ok = x, true
		}
	}
	return v, ok
}

// checkCommand verifies that cmd's type is known, that BaseCommand has a
// field for it and that the field is set. Required fields are checked by the
// protobuf encoder and decoder, not here.
func checkCommand(cmd *proto.BaseCommand) error {
	if cmd == nil {
		return newError(ErrMalformed, "nil command", nil)
	}
	if cmd.Type == nil {
		// protobuf-go keeps an enum number outside the enum in the field
		// (proto2 enums are open in Go), but a runtime treating them as
		// closed would move it to the unknown fields: recover it from there.
		if v, ok := topLevelVarint(cmd.ProtoReflect().GetUnknown(), 1); ok {
			e := cmdError(ErrUnknownCommand, "command type not in the protocol enum", nil, cmd)
			e.Type = proto.BaseCommand_Type(int32(v))
			return e
		}
		return cmdError(ErrMalformed, "command has no type", nil, cmd)
	}
	t := cmd.GetType()
	if typeName(t) == "" {
		return cmdError(ErrUnknownCommand, "command type not in the protocol enum", nil, cmd)
	}
	cf := fieldOf(t)
	if cf == nil {
		return cmdError(ErrUnknownCommand, "command type not supported", nil, cmd)
	}
	if !cmd.ProtoReflect().Has(cf.fd) {
		return cmdError(ErrMalformed, "field "+string(cf.fd.Name())+" not set", nil, cmd)
	}
	return nil
}

// topLevelVarint returns the last varint of field number num in raw protobuf
// bytes b.
func topLevelVarint(b []byte, num protowire.Number) (v uint64, ok bool) {
	for len(b) > 0 {
		n, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			return v, ok
		}
		b = b[m:]
		if n == num && typ == protowire.VarintType {
			x, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return v, ok
			}
			v, ok = x, true
			b = b[m:]
			continue
		}
		m = protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return v, ok
		}
		b = b[m:]
	}
	return v, ok
}
