package pulsar

import (
	"encoding/json"
	"fmt"

	"github.com/hamba/avro/v2"
)

// initAvroCodec parses an Avro schema document. Each parse has its own
// cache of named types (the library's default cache is process-wide and
// grows with every schema parsed), so a definition can refer only to the
// names it defines itself.
func initAvroCodec(schemaDef string) (avro.Schema, error) {
	return avro.ParseWithCache(schemaDef, "", &avro.SchemaCache{})
}

// avroSchemaInfo parses def and returns the parsed schema and the
// SchemaInfo of type t whose definition is the parsed schema's canonical
// JSON, as the official client sends it (not def as written).
func avroSchemaInfo(def string, t SchemaType, name string, props map[string]string) (avro.Schema, SchemaInfo, error) {
	codec, err := initAvroCodec(def)
	if err != nil {
		return nil, SchemaInfo{}, &SchemaError{Op: "parse", Type: t, Err: err}
	}
	resolved, err := json.Marshal(codec)
	if err != nil {
		return nil, SchemaInfo{}, &SchemaError{Op: "parse", Type: t, Err: err}
	}
	return codec, SchemaInfo{Name: name, Schema: string(resolved), Type: t, Properties: props}, nil
}

// AvroSchema encodes values with Avro's binary encoding (struct fields
// matched by name or `avro` tag, as github.com/hamba/avro/v2 does).
type AvroSchema struct {
	// Codec is the parsed Avro schema.
	Codec avro.Schema
	SchemaInfo
	api avro.API
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
	return &AvroSchema{Codec: codec, SchemaInfo: info, api: newAvroAPI()}, nil
}

// newAvroAPI is the codec configuration of one schema: the library's
// defaults, without its 1 MiB limit on strings and bytes (checkAvro bounds
// every length by the payload before the library reads it).
func newAvroAPI() avro.API {
	return avro.Config{MaxByteSliceSize: -1}.Freeze()
}

func (as *AvroSchema) initErr() error {
	if as.err == nil && as.Codec == nil {
		return &SchemaError{Op: "create", Type: AVRO, Err: fmt.Errorf("AvroSchema without Codec")}
	}
	return as.err
}

// codecAPI is the schema's codec configuration; the library's default for
// an AvroSchema built as a literal.
func (as *AvroSchema) codecAPI() avro.API {
	if as.api != nil {
		return as.api
	}
	return avro.DefaultConfig
}

// Encode returns the Avro binary encoding of data.
func (as *AvroSchema) Encode(data any) ([]byte, error) {
	if err := as.initErr(); err != nil {
		return nil, err
	}
	b, err := as.codecAPI().Marshal(as.Codec, data)
	if err != nil {
		return nil, &SchemaError{Op: "encode", Type: AVRO, Err: err}
	}
	return b, nil
}

// Decode decodes the Avro binary data into v, a pointer. The payload is
// checked against the schema first, so a malformed one fails with a
// *SchemaError without allocating what its lengths claim.
func (as *AvroSchema) Decode(data []byte, v any) error {
	if err := as.initErr(); err != nil {
		return err
	}
	if _, err := checkAvro(as.Codec, data); err != nil {
		return &SchemaError{Op: "decode", Type: AVRO, Err: err}
	}
	if v == nil {
		return &SchemaError{Op: "decode", Type: AVRO, Err: fmt.Errorf("nil target")}
	}
	if err := as.codecAPI().Unmarshal(as.Codec, data, v); err != nil {
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
	n, err := checkAvro(as.Codec, message)
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
