package pulsar

import (
	"fmt"
)

// SchemaError is the error of a schema operation: a value that does not
// encode, a payload that does not decode (Message.GetSchemaValue), a
// definition that does not parse, a schema the broker refuses or does not
// have. Err is the cause (a *ServerError from the broker, the codec
// library's error, ...); errors.As finds both.
//
// The official client's sentinel ErrSchema is matched through Is once it
// is defined in this package.
type SchemaError struct {
	// Op is what failed: "encode", "decode", "validate", "parse",
	// "create", "register" (GET_OR_CREATE_SCHEMA) or "fetch" (GET_SCHEMA).
	Op string
	// Type is the schema's type, when known.
	Type SchemaType
	// Err is the cause.
	Err error
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("pulsar: schema %s (%s): %v", e.Op, schemaTypeName(e.Type), e.Err)
}

// Unwrap returns the cause.
func (e *SchemaError) Unwrap() error { return e.Err }

// schemaErr wraps err as a *SchemaError of op, unless it is one already.
func schemaErr(op string, t SchemaType, err error) error {
	if err == nil {
		return nil
	}
	if se, ok := err.(*SchemaError); ok {
		return se
	}
	return &SchemaError{Op: op, Type: t, Err: err}
}

// schemaTypeName is Pulsar's name of t.
func schemaTypeName(t SchemaType) string {
	switch t {
	case NONE:
		return "BYTES"
	case STRING:
		return "STRING"
	case JSON:
		return "JSON"
	case PROTOBUF:
		return "PROTOBUF"
	case AVRO:
		return "AVRO"
	case BOOLEAN:
		return "BOOLEAN"
	case INT8:
		return "INT8"
	case INT16:
		return "INT16"
	case INT32:
		return "INT32"
	case INT64:
		return "INT64"
	case FLOAT:
		return "FLOAT"
	case DOUBLE:
		return "DOUBLE"
	case KeyValue:
		return "KEY_VALUE"
	case AUTO:
		return "AUTO"
	case AutoConsume:
		return "AUTO_CONSUME"
	case AutoPublish:
		return "AUTO_PUBLISH"
	case ProtoNative:
		return "PROTOBUF_NATIVE"
	}
	return fmt.Sprintf("type %d", int(t))
}
