package pulsar

import (
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// ProtoSchema encodes protobuf messages (values must be proto.Message);
// its definition is an Avro schema document describing them, as Pulsar's
// PROTOBUF schemas are.
type ProtoSchema struct {
	SchemaInfo
	err error
}

// NewProtoSchema returns the PROTOBUF schema described by the Avro document
// protoAvroSchemaDef. A definition that does not parse gives a schema whose
// every use fails with that error (the official client exits the
// process); use NewProtoSchemaWithValidation to get the error here.
func NewProtoSchema(protoAvroSchemaDef string, properties map[string]string) *ProtoSchema {
	s, err := NewProtoSchemaWithValidation(protoAvroSchemaDef, properties)
	if err != nil {
		return &ProtoSchema{SchemaInfo: SchemaInfo{Name: "Proto", Type: PROTOBUF, Properties: properties}, err: err}
	}
	return s
}

// NewProtoSchemaWithValidation returns the PROTOBUF schema described by the
// Avro document protoAvroSchemaDef, or a *SchemaError when it does not
// parse. Its SchemaInfo is named "Proto" and holds the parsed schema's
// canonical JSON.
func NewProtoSchemaWithValidation(protoAvroSchemaDef string, properties map[string]string) (*ProtoSchema, error) {
	_, info, err := avroSchemaInfo(protoAvroSchemaDef, PROTOBUF, "Proto", properties)
	if err != nil {
		return nil, err
	}
	return &ProtoSchema{SchemaInfo: info}, nil
}

func (ps *ProtoSchema) initErr() error { return ps.err }

// Encode returns proto.Marshal(data); data must be a proto.Message.
func (ps *ProtoSchema) Encode(data any) ([]byte, error) {
	if ps.err != nil {
		return nil, ps.err
	}
	return protoEncode(PROTOBUF, data)
}

// Decode is proto.Unmarshal(data, v); v must be a proto.Message.
func (ps *ProtoSchema) Decode(data []byte, v any) error {
	if ps.err != nil {
		return ps.err
	}
	return protoDecode(PROTOBUF, data, v)
}

// Validate reports whether message is well-formed protobuf wire data.
func (ps *ProtoSchema) Validate(message []byte) error {
	if ps.err != nil {
		return ps.err
	}
	return protoValidate(PROTOBUF, message)
}

// GetSchemaInfo returns the schema's SchemaInfo.
func (ps *ProtoSchema) GetSchemaInfo() *SchemaInfo { return &ps.SchemaInfo }

// ProtoNativeSchema encodes protobuf messages; its definition is the
// message's file descriptors (PROTOBUF_NATIVE), which Pulsar checks
// schemas by.
type ProtoNativeSchema struct {
	SchemaInfo
	err error
}

// ProtoNativeSchemaData is the definition of a ProtoNativeSchema: the JSON
// of a serialized FileDescriptorSet (the root message's file and every
// file it imports, imports first), the root message's full name and its
// file's path.
type ProtoNativeSchemaData struct {
	FileDescriptorSet      []byte `json:"fileDescriptorSet"`
	RootMessageTypeName    string `json:"rootMessageTypeName"`
	RootFileDescriptorName string `json:"rootFileDescriptorName"`
}

// NewProtoNativeSchemaWithMessage returns the PROTOBUF_NATIVE schema of
// message's type. A nil message gives a schema whose every use fails (the
// official client exits the process); see
// NewProtoNativeSchemaWithMessageWithValidation.
func NewProtoNativeSchemaWithMessage(message proto.Message, properties map[string]string) *ProtoNativeSchema {
	s, err := NewProtoNativeSchemaWithMessageWithValidation(message, properties)
	if err != nil {
		return &ProtoNativeSchema{SchemaInfo: SchemaInfo{Name: "ProtoNative", Type: ProtoNative, Properties: properties}, err: err}
	}
	return s
}

// NewProtoNativeSchemaWithMessageWithValidation is
// NewProtoNativeSchemaWithMessage that returns a *SchemaError instead of a
// failing schema. (The official client has only the other form.)
func NewProtoNativeSchemaWithMessageWithValidation(message proto.Message, properties map[string]string) (*ProtoNativeSchema, error) {
	def, err := protoNativeDefinition(message)
	if err != nil {
		return nil, &SchemaError{Op: "create", Type: ProtoNative, Err: err}
	}
	return newProtoNativeSchema(def, properties), nil
}

// newProtoNativeSchema is the schema of the definition def as given.
func newProtoNativeSchema(def string, properties map[string]string) *ProtoNativeSchema {
	return &ProtoNativeSchema{SchemaInfo: SchemaInfo{Name: "ProtoNative", Schema: def, Type: ProtoNative, Properties: properties}}
}

// protoNativeDefinition is the JSON of message's ProtoNativeSchemaData.
func protoNativeDefinition(message proto.Message) (string, error) {
	if message == nil {
		return "", errors.New("nil message")
	}
	md := message.ProtoReflect().Descriptor()
	file := md.ParentFile()
	if file == nil {
		return "", fmt.Errorf("message %s has no file descriptor", md.FullName())
	}
	var files []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var add func(protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		for i := range f.Imports().Len() {
			add(f.Imports().Get(i).FileDescriptor)
		}
		files = append(files, protodesc.ToFileDescriptorProto(f))
	}
	add(file)
	set, err := proto.MarshalOptions{Deterministic: true}.Marshal(&descriptorpb.FileDescriptorSet{File: files})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(ProtoNativeSchemaData{
		FileDescriptorSet:      set,
		RootMessageTypeName:    string(md.FullName()),
		RootFileDescriptorName: file.Path(),
	})
	return string(b), err
}

func (ps *ProtoNativeSchema) initErr() error { return ps.err }

// Encode returns proto.Marshal(data); data must be a proto.Message.
func (ps *ProtoNativeSchema) Encode(data any) ([]byte, error) {
	if ps.err != nil {
		return nil, ps.err
	}
	return protoEncode(ProtoNative, data)
}

// Decode is proto.Unmarshal(data, v); v must be a proto.Message.
func (ps *ProtoNativeSchema) Decode(data []byte, v any) error {
	if ps.err != nil {
		return ps.err
	}
	return protoDecode(ProtoNative, data, v)
}

// Validate reports whether message is well-formed protobuf wire data.
func (ps *ProtoNativeSchema) Validate(message []byte) error {
	if ps.err != nil {
		return ps.err
	}
	return protoValidate(ProtoNative, message)
}

// GetSchemaInfo returns the schema's SchemaInfo.
func (ps *ProtoNativeSchema) GetSchemaInfo() *SchemaInfo { return &ps.SchemaInfo }

func protoEncode(t SchemaType, data any) ([]byte, error) {
	m, ok := data.(proto.Message)
	if !ok {
		return nil, &SchemaError{Op: "encode", Type: t, Err: fmt.Errorf("%T is not a proto.Message", data)}
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, &SchemaError{Op: "encode", Type: t, Err: err}
	}
	return b, nil
}

func protoDecode(t SchemaType, data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok || m == nil {
		return &SchemaError{Op: "decode", Type: t, Err: fmt.Errorf("%T is not a proto.Message", v)}
	}
	if err := proto.Unmarshal(data, m); err != nil {
		return &SchemaError{Op: "decode", Type: t, Err: err}
	}
	return nil
}

// protoValidate checks that message is a sequence of well-formed fields.
func protoValidate(t SchemaType, message []byte) error {
	for b := message; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &SchemaError{Op: "validate", Type: t, Err: protowire.ParseError(n)}
		}
		b = b[n:]
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return &SchemaError{Op: "validate", Type: t, Err: protowire.ParseError(n)}
		}
		b = b[n:]
	}
	return nil
}
