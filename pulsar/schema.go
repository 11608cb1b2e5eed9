package pulsar

import (
	"fmt"
)

// SchemaType is the type of a schema, numbered as the official Go client
// numbers it: the wire protocol's Schema.Type for every type but the AUTO
// ones, which the protocol lacks.
type SchemaType int

// Schema types, the official Go client's names and numbers. BYTES and NONE
// are one number: a BYTES schema goes on the wire as type NONE.
const (
	NONE        SchemaType = 0  // no schema: raw bytes
	STRING      SchemaType = 1  // UTF-8 text
	JSON        SchemaType = 2  // JSON, described by an Avro schema document
	PROTOBUF    SchemaType = 3  // protobuf, described by an Avro schema document
	AVRO        SchemaType = 4  // Avro binary encoding
	BOOLEAN     SchemaType = 5  // one byte, 0 or 1
	INT8        SchemaType = 6  // one byte
	INT16       SchemaType = 7  // two bytes, little-endian (as the official Go client)
	INT32       SchemaType = 8  // four bytes, little-endian (as the official Go client)
	INT64       SchemaType = 9  // eight bytes, little-endian (as the official Go client)
	FLOAT       SchemaType = 10 // IEEE 754 single, big-endian
	DOUBLE      SchemaType = 11 // IEEE 754 double, big-endian
	KeyValue    SchemaType = 15 // a key schema and a value schema
	BYTES       SchemaType = 0  // raw bytes (the same number as NONE)
	AUTO        SchemaType = -2 // deprecated AUTO type
	AutoConsume SchemaType = -3 // decode with whatever schema the topic has
	AutoPublish SchemaType = -4 // encode with whatever schema the topic has
	ProtoNative SchemaType = 20 // protobuf, described by its file descriptors
)

// SchemaInfo describes a schema to the broker: the fields of the protocol's
// Schema, sent as they are in PRODUCER, SUBSCRIBE and GET_OR_CREATE_SCHEMA.
type SchemaInfo struct {
	// Name is the schema's name ("Avro", "JSON", "String", ...).
	Name string
	// Schema is the schema definition (an Avro or protobuf-native
	// document; empty for the primitive types).
	Schema string
	// Type is the schema type.
	Type SchemaType
	// Properties are the schema's properties; nil for none.
	Properties map[string]string
}

// Schema encodes ProducerMessage.Value into a payload and decodes payloads
// for Message.GetSchemaValue. Set it in ProducerOptions, ConsumerOptions,
// ReaderOptions or a single ProducerMessage. This package's AvroSchema,
// JSONSchema, ProtoSchema, ... implement it, and so may an application's
// own schema (the official Go client's interface).
type Schema interface {
	// Encode returns the payload of v.
	Encode(v any) ([]byte, error)
	// Decode decodes data into v (a pointer).
	Decode(data []byte, v any) error
	// Validate reports whether message is a valid payload of the schema.
	Validate(message []byte) error
	// GetSchemaInfo returns the schema as the broker sees it.
	GetSchemaInfo() *SchemaInfo
}

// NewSchema returns the schema of type schemaType with the definition
// schemaData (used by AVRO, JSON, PROTOBUF and ProtoNative; ignored by the
// others) and properties, as a consumer builds the writer's schema of a
// message from the broker's answer. Types without a codec here (BOOLEAN,
// KeyValue, the AUTO types) are refused with a *SchemaError, as is a
// definition that does not parse.
func NewSchema(schemaType SchemaType, schemaData []byte, properties map[string]string) (Schema, error) {
	def := string(schemaData)
	switch schemaType {
	case BYTES:
		return NewBytesSchema(properties), nil
	case STRING:
		return NewStringSchema(properties), nil
	case JSON:
		return nilOnErr(NewJSONSchemaWithValidation(def, properties))
	case PROTOBUF:
		return nilOnErr(NewProtoSchemaWithValidation(def, properties))
	case AVRO:
		return nilOnErr(NewAvroSchemaWithValidation(def, properties))
	case INT8:
		return NewInt8Schema(properties), nil
	case INT16:
		return NewInt16Schema(properties), nil
	case INT32:
		return NewInt32Schema(properties), nil
	case INT64:
		return NewInt64Schema(properties), nil
	case FLOAT:
		return NewFloatSchema(properties), nil
	case DOUBLE:
		return NewDoubleSchema(properties), nil
	case ProtoNative:
		return newProtoNativeSchema(def, properties), nil
	}
	return nil, &SchemaError{Op: "create", Type: schemaType, Err: fmt.Errorf("no codec for schema type %d", int(schemaType))}
}

// nilOnErr turns a typed nil schema into a nil interface when err is set.
func nilOnErr[S Schema](s S, err error) (Schema, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// schemaInitErr is implemented by the schemas whose legacy constructor
// (NewAvroSchema, NewJSONSchema, ...) cannot return an error: a producer,
// consumer or reader given one whose definition did not parse fails to be
// created with this error instead of the official client's process exit.
type schemaInitErr interface{ initErr() error }

// checkSchema returns the definition error of s, nil when it has none.
func checkSchema(s Schema) error {
	if s == nil {
		return nil
	}
	if ie, ok := s.(schemaInitErr); ok {
		if err := ie.initErr(); err != nil {
			return err
		}
	}
	if s.GetSchemaInfo() == nil {
		return &SchemaError{Op: "create", Err: fmt.Errorf("schema %T has no SchemaInfo", s)}
	}
	return nil
}

// effectiveSchema is the schema a producer or consumer uses for s: a schema
// of type NONE becomes NewBytesSchema(nil), as in the official client (its
// properties are dropped).
func effectiveSchema(s Schema) Schema {
	if s != nil && s.GetSchemaInfo() != nil && s.GetSchemaInfo().Type == NONE {
		return NewBytesSchema(nil)
	}
	return s
}
