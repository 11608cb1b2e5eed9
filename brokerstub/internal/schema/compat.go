package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Validate checks schema data for its type, as Pulsar's
// SchemaDataValidator does before anything is stored or compared: AVRO,
// JSON and PROTOBUF data must be an Avro schema document (JSON also in the
// older JSON-Schema form, an object with "type":"object"), PROTOBUF_NATIVE
// a descriptor document, KEY_VALUE two valid parts, the other primitive
// types empty data; NONE (the Go client's BYTES) and STRING any data. Client-side
// types (AUTO_CONSUME) and unknown types are refused.
func Validate(s Schema) error {
	switch {
	case s.Type.usesAvroParser():
		if _, _, err := parseAvro(s.Data); err != nil {
			if s.Type == JSON && isOldJSONSchema(s.Data) {
				return nil
			}
			return err
		}
	case s.Type == ProtobufNative:
		if _, err := parseProtoNative(s.Data); err != nil {
			return err
		}
	case s.Type == KeyValue:
		return validateKeyValue(s)
	case s.Type == None, s.Type == String:
	case s.Type >= Bool && s.Type <= LocalDateTime:
		if len(s.Data) != 0 {
			return fmt.Errorf("%w: invalid schema definition data for primitive schemas: length of schema data should be zero, but %d bytes is found", ErrInvalid, len(s.Data))
		}
	case s.Type == AutoConsume:
		return fmt.Errorf("%w: schema %s is a client-side schema type", ErrInvalid, s.Type)
	default:
		return fmt.Errorf("%w: unknown schema type: %s", ErrInvalid, s.Type)
	}
	return nil
}

// isOldJSONSchema reports whether data is a JSON Schema document in the
// format Pulsar's JSON schemas used before they carried Avro definitions.
func isOldJSONSchema(data []byte) bool {
	var v struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(data, &v) == nil && v.Type == "object"
}

// oldJSONID returns the "id" of an old-format JSON schema.
func oldJSONID(data []byte) string {
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(data, &v)
	return v.ID
}

// sameSchema reports whether two schemas are the same one for the
// registry, as Pulsar's getSchemaVersionBySchemaData decides: the same type
// and, for AVRO, JSON and PROTOBUF, equal parsed Avro schemas (Avro's
// Schema.equals), else byte-equal data (Pulsar compares SHA-256 hashes of
// the data). Properties are not compared.
func sameSchema(a, b Schema) bool {
	if a.Type != b.Type {
		return false
	}
	if a.Type.usesAvroParser() {
		_, ca, errA := parseAvro(a.Data)
		_, cb, errB := parseAvro(b.Data)
		if errA == nil && errB == nil {
			return ca == cb
		}
	}
	return bytes.Equal(a.Data, b.Data)
}

// checkCompatible checks schema to against the existing schemas from
// (oldest first; only the latest unless the strategy is transitive, as the
// caller decides) under strategy, as Pulsar's SchemaCompatibilityCheck of
// to's type does. It returns an error wrapping ErrIncompatible.
func checkCompatible(from []Schema, to Schema, strategy Strategy) error {
	if strategy == AlwaysCompatible {
		return nil
	}
	for _, f := range from {
		if f.Type != to.Type {
			return fmt.Errorf("%w: Incompatible schema: exists schema type %s, new schema type %s", ErrIncompatible, f.Type, to.Type)
		}
	}
	// An existing schema with the very same data is compatible whatever the
	// strategy (Pulsar compares SchemaHash first); only the others are checked.
	var others []Schema
	for _, f := range from {
		if !bytes.Equal(f.Data, to.Data) {
			others = append(others, f)
		}
	}
	if len(others) == 0 {
		return nil
	}
	if strategy == AlwaysIncompatible {
		return fmt.Errorf("%w: Schema compatibility strategy is ALWAYS_INCOMPATIBLE", ErrIncompatible)
	}
	switch to.Type {
	case Avro:
		return checkAvro(others, to.Data, strategy)
	case JSON:
		return checkJSON(others, to.Data, strategy)
	case ProtobufNative:
		return checkProtoNative(others, to.Data)
	case KeyValue:
		return checkKeyValue(others, to, strategy)
	}
	return nil // Pulsar's default check: only ALWAYS_INCOMPATIBLE refuses
}

// checkAvro applies Avro's resolution rules: BACKWARD means the new schema
// can read data written with the existing ones, FORWARD that the existing
// ones can read data written with the new one, FULL both.
func checkAvro(from []Schema, to []byte, strategy Strategy) error {
	toNode, _, err := parseAvro(to)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIncompatible, err)
	}
	back := strategy == Backward || strategy == BackwardTransitive || strategy == Full || strategy == FullTransitive
	fwd := strategy == Forward || strategy == ForwardTransitive || strategy == Full || strategy == FullTransitive
	for _, f := range from {
		fromNode, _, err := parseAvro(f.Data)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrIncompatible, err)
		}
		if back {
			if why := canRead(toNode, fromNode); why != "" {
				return fmt.Errorf("%w: the new schema cannot read data written with an existing one (%s): %s", ErrIncompatible, strategy, why)
			}
		}
		if fwd {
			if why := canRead(fromNode, toNode); why != "" {
				return fmt.Errorf("%w: an existing schema cannot read data written with the new one (%s): %s", ErrIncompatible, strategy, why)
			}
		}
	}
	return nil
}

// checkJSON is Pulsar's JsonSchemaCompatibilityCheck: Avro rules between
// Avro-form definitions; an old JSON-Schema form on either side is accepted
// (it is replaced), and two old forms must have the same id.
func checkJSON(from []Schema, to []byte, strategy Strategy) error {
	_, _, toErr := parseAvro(to)
	for _, f := range from {
		_, _, fromErr := parseAvro(f.Data)
		switch {
		case fromErr == nil && toErr == nil:
			if err := checkAvro([]Schema{f}, to, strategy); err != nil {
				return err
			}
		case fromErr == nil, toErr == nil:
			if !isOldJSONSchema(f.Data) && !isOldJSONSchema(to) {
				return fmt.Errorf("%w: Unknown schema format", ErrIncompatible)
			}
		default:
			if oldJSONID(f.Data) != oldJSONID(to) {
				return fmt.Errorf("%w: Incompatible Schema from %s + to %s", ErrIncompatible, f.Data, to)
			}
		}
	}
	return nil
}
