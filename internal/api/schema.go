package api

// SchemaType is the type of a schema, numbered as the official Go client
// numbers it (the wire protocol's Schema.Type for every type but the AUTO
// ones, which the protocol lacks). Package pulsar exports it as
// pulsar.SchemaType with its constants.
type SchemaType int

// Schema types. BYTES and NONE are the same number: a BYTES schema goes on
// the wire as type NONE, as in the official Go client.
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

// SchemaInfo is what a client tells the broker about a schema: the fields of
// the protocol's Schema. Producers send it in PRODUCER and
// GET_OR_CREATE_SCHEMA, consumers in SUBSCRIBE.
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

// Schema encodes values to payloads and decodes payloads to values. The
// official Go client's interface, implemented by package pulsar's
// AvroSchema, JSONSchema, ProtoSchema, ... and by applications' own schemas.
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
