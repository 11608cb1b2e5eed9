package pulsar

import (
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
)

// SchemaType is the type of a schema, numbered as the official Go client
// numbers it. (Defined in internal/api, which ProducerMessage shares.)
type SchemaType = api.SchemaType

// Schema types, the official Go client's names and numbers. BYTES and NONE
// are one number: a BYTES schema goes on the wire as type NONE.
const (
	NONE        = api.NONE
	STRING      = api.STRING
	JSON        = api.JSON
	PROTOBUF    = api.PROTOBUF
	AVRO        = api.AVRO
	BOOLEAN     = api.BOOLEAN
	INT8        = api.INT8
	INT16       = api.INT16
	INT32       = api.INT32
	INT64       = api.INT64
	FLOAT       = api.FLOAT
	DOUBLE      = api.DOUBLE
	KeyValue    = api.KeyValue
	BYTES       = api.BYTES
	AUTO        = api.AUTO
	AutoConsume = api.AutoConsume
	AutoPublish = api.AutoPublish
	ProtoNative = api.ProtoNative
)

// SchemaInfo describes a schema to the broker: name, definition, type and
// properties, sent as they are in PRODUCER, SUBSCRIBE and
// GET_OR_CREATE_SCHEMA.
type SchemaInfo = api.SchemaInfo

// Schema encodes ProducerMessage.Value into a payload and decodes payloads
// for Message.GetSchemaValue. Set it in ProducerOptions, ConsumerOptions,
// ReaderOptions or a single ProducerMessage.
type Schema = api.Schema

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
