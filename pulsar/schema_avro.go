package pulsar

import (
	"fmt"

	"github.com/pulsargo/sdk/internal/avro"
)

// AvroCodec is a parsed Avro schema: the Codec of an AvroSchema, which
// encodes and decodes with it. NewAvroSchemaWithValidation makes one.
type AvroCodec struct{ s *avro.Schema }

// String returns the schema's Parsing Canonical Form.
func (c *AvroCodec) String() string { return c.s.String() }

// MarshalJSON returns the schema's definition as the official client sends
// it to the broker (names resolved, defaults kept).
func (c *AvroCodec) MarshalJSON() ([]byte, error) { return c.s.MarshalJSON() }

// Marshal encodes v with Avro's binary encoding (see AvroSchema for how Go
// values map to Avro types).
func (c *AvroCodec) Marshal(v any) ([]byte, error) { return c.s.Marshal(v) }

// Unmarshal decodes data into v, a pointer.
func (c *AvroCodec) Unmarshal(data []byte, v any) error { return c.s.Unmarshal(data, v) }

// Validate checks that data starts with one value of the schema and
// returns the bytes it takes.
func (c *AvroCodec) Validate(data []byte) (int, error) { return c.s.Validate(data) }

// initAvroCodec parses an Avro schema document. A definition can refer
// only to the names it defines itself (no cache is shared between
// parses).
func initAvroCodec(schemaDef string) (*AvroCodec, error) {
	s, err := avro.Parse(schemaDef)
	if err != nil {
		return nil, err
	}
	return &AvroCodec{s}, nil
}

// avroSchemaInfo parses def and returns the parsed schema and the
// SchemaInfo of type t whose definition is the parsed schema's canonical
// JSON, as the official client sends it (not def as written).
func avroSchemaInfo(def string, t SchemaType, name string, props map[string]string) (*AvroCodec, SchemaInfo, error) {
	codec, err := initAvroCodec(def)
	if err != nil {
		return nil, SchemaInfo{}, &SchemaError{Op: "parse", Type: t, Err: err}
	}
	resolved, err := codec.MarshalJSON()
	if err != nil {
		return nil, SchemaInfo{}, &SchemaError{Op: "parse", Type: t, Err: err}
	}
	return codec, SchemaInfo{Name: name, Schema: string(resolved), Type: t, Properties: props}, nil
}

// AvroSchema encodes values with Avro's binary encoding: struct fields
// matched by their `avro:"name"` tag or by name, pointers for
// ["null", T] unions, map[string]any for records and for other unions
// ({"branch type": value}), time.Time for the timestamp and date logical
// types — the mapping of the official client's library.
type AvroSchema struct {
	// Codec is the parsed Avro schema (nil: every use fails).
	Codec *AvroCodec
	SchemaInfo
	err error
}

// NewAvroSchema returns the Avro schema of the document avroSchemaDef. A
// definition that does not parse gives a schema whose every use fails with
// that error (the official client exits the process); use
// NewAvroSchemaWithValidation to get the error here.
func NewAvroSchema(avroSchemaDef string, properties map[string]string) *AvroSchema {
	s, err := NewAvroSchemaWithValidation(avroSchemaDef, properties)
	if err != nil {
		return &AvroSchema{SchemaInfo: SchemaInfo{Name: "Avro", Type: AVRO, Properties: properties}, err: err}
	}
	return s
}

// NewAvroSchemaWithValidation returns the Avro schema of the document
// avroSchemaDef, or a *SchemaError when it does not parse. Its SchemaInfo
// is named "Avro" and holds the parsed schema's canonical JSON.
func NewAvroSchemaWithValidation(avroSchemaDef string, properties map[string]string) (*AvroSchema, error) {
	codec, info, err := avroSchemaInfo(avroSchemaDef, AVRO, "Avro", properties)
	if err != nil {
		return nil, err
	}
	return &AvroSchema{Codec: codec, SchemaInfo: info}, nil
}

func (as *AvroSchema) initErr() error {
	if as.err == nil && as.Codec == nil {
		return &SchemaError{Op: "create", Type: AVRO, Err: fmt.Errorf("AvroSchema without Codec")}
	}
	return as.err
}

// Encode returns the Avro binary encoding of data.
func (as *AvroSchema) Encode(data any) ([]byte, error) {
	if err := as.initErr(); err != nil {
		return nil, err
	}
	b, err := as.Codec.Marshal(data)
	if err != nil {
		return nil, &SchemaError{Op: "encode", Type: AVRO, Err: err}
	}
	return b, nil
}

// Decode decodes the Avro binary data into v, a pointer. A malformed
// payload fails with a *SchemaError without allocating what its lengths
// claim (see internal/avro's limits).
func (as *AvroSchema) Decode(data []byte, v any) error {
	if err := as.initErr(); err != nil {
		return err
	}
	if v == nil {
		return &SchemaError{Op: "decode", Type: AVRO, Err: fmt.Errorf("nil target")}
	}
	if err := as.Codec.Unmarshal(data, v); err != nil {
		return &SchemaError{Op: "decode", Type: AVRO, Err: err}
	}
	return nil
}

// Validate reports whether message is exactly one Avro value of the
// schema.
func (as *AvroSchema) Validate(message []byte) error {
	if err := as.initErr(); err != nil {
		return err
	}
	n, err := as.Codec.Validate(message)
	if err == nil && n != len(message) {
		err = fmt.Errorf("%d bytes after the value", len(message)-n)
	}
	if err != nil {
		return &SchemaError{Op: "validate", Type: AVRO, Err: err}
	}
	return nil
}

// GetSchemaInfo returns the schema's SchemaInfo.
func (as *AvroSchema) GetSchemaInfo() *SchemaInfo { return &as.SchemaInfo }
