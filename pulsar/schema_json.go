package pulsar

import (
	"encoding/json"
	"fmt"
)

// JSONSchema encodes values as JSON (encoding/json); its definition is an
// Avro schema document describing them, as Pulsar's JSON schemas are.
type JSONSchema struct {
	SchemaInfo
	err error
}

// NewJSONSchema returns the JSON schema described by the Avro document
// jsonAvroSchemaDef. A definition that does not parse gives a schema whose
// every use fails with that error (the official client exits the
// process); use NewJSONSchemaWithValidation to get the error here.
func NewJSONSchema(jsonAvroSchemaDef string, properties map[string]string) *JSONSchema {
	s, err := NewJSONSchemaWithValidation(jsonAvroSchemaDef, properties)
	if err != nil {
		return &JSONSchema{SchemaInfo: SchemaInfo{Name: "JSON", Type: JSON, Properties: properties}, err: err}
	}
	return s
}

// NewJSONSchemaWithValidation returns the JSON schema described by the Avro
// document jsonAvroSchemaDef, or a *SchemaError when it does not parse.
// Its SchemaInfo is named "JSON" and holds the parsed schema's canonical
// JSON.
func NewJSONSchemaWithValidation(jsonAvroSchemaDef string, properties map[string]string) (*JSONSchema, error) {
	_, info, err := avroSchemaInfo(jsonAvroSchemaDef, JSON, "JSON", properties)
	if err != nil {
		return nil, err
	}
	return &JSONSchema{SchemaInfo: info}, nil
}

func (js *JSONSchema) initErr() error { return js.err }

// Encode returns json.Marshal(data).
func (js *JSONSchema) Encode(data any) ([]byte, error) {
	if js.err != nil {
		return nil, js.err
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, &SchemaError{Op: "encode", Type: JSON, Err: err}
	}
	return b, nil
}

// Decode is json.Unmarshal(data, v).
func (js *JSONSchema) Decode(data []byte, v any) error {
	if js.err != nil {
		return js.err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &SchemaError{Op: "decode", Type: JSON, Err: err}
	}
	return nil
}

// Validate reports whether message is one JSON value.
func (js *JSONSchema) Validate(message []byte) error {
	if js.err != nil {
		return js.err
	}
	if !json.Valid(message) {
		return &SchemaError{Op: "validate", Type: JSON, Err: fmt.Errorf("not valid JSON")}
	}
	return nil
}

// GetSchemaInfo returns the schema's SchemaInfo.
func (js *JSONSchema) GetSchemaInfo() *SchemaInfo { return &js.SchemaInfo }
