// Package schema is brokerstub's schema registry: the versions of each
// topic's schema, Pulsar's compatibility strategies and the Avro resolution
// rules they use for AVRO and JSON schemas, as Apache Pulsar 4.x's
// SchemaRegistryServiceImpl and its compatibility checks define them.
//
// A schema id is the topic's base name without domain and partition
// ("tenant/namespace/local"), so partitions of one topic, and the persistent
// and non-persistent topic of one name, share their schema, as in Pulsar.
// Versions are numbered 0, 1, 2, … per id and travel as 8-byte big-endian
// integers (Pulsar's LongSchemaVersion).
package schema

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Type is a schema type, numbered as the wire protocol's Schema.Type.
type Type int32

// Schema types (the wire protocol's Schema.Type numbers).
const (
	None           Type = 0
	String         Type = 1
	JSON           Type = 2
	Protobuf       Type = 3
	Avro           Type = 4
	Bool           Type = 5
	Int8           Type = 6
	Int16          Type = 7
	Int32          Type = 8
	Int64          Type = 9
	Float          Type = 10
	Double         Type = 11
	Date           Type = 12
	Time           Type = 13
	Timestamp      Type = 14
	KeyValue       Type = 15
	Instant        Type = 16
	LocalDate      Type = 17
	LocalTime      Type = 18
	LocalDateTime  Type = 19
	ProtobufNative Type = 20
	AutoConsume    Type = 21
)

var typeNames = map[Type]string{
	None: "NONE", String: "STRING", JSON: "JSON", Protobuf: "PROTOBUF", Avro: "AVRO",
	Bool: "BOOLEAN", Int8: "INT8", Int16: "INT16", Int32: "INT32", Int64: "INT64",
	Float: "FLOAT", Double: "DOUBLE", Date: "DATE", Time: "TIME", Timestamp: "TIMESTAMP",
	KeyValue: "KEY_VALUE", Instant: "INSTANT", LocalDate: "LOCAL_DATE", LocalTime: "LOCAL_TIME",
	LocalDateTime: "LOCAL_DATE_TIME", ProtobufNative: "PROTOBUF_NATIVE", AutoConsume: "AUTO_CONSUME",
}

// String returns Pulsar's name of the type (SchemaType), e.g. "AVRO".
func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Type(%d)", int32(t))
}

// usesAvroParser reports whether Pulsar compares and checks schemas of this
// type as Avro schema documents (isUsingAvroSchemaParser).
func (t Type) usesAvroParser() bool { return t == Avro || t == JSON || t == Protobuf }

// Schema is one schema as a client sends it and the registry stores it.
type Schema struct {
	Type  Type
	Data  []byte
	Props map[string]string
}

// Version is a stored schema version with its schema.
type Version struct {
	Version int64
	Schema  Schema
	// Deleted marks the entry Pulsar writes when a schema is deleted
	// without force: the schema id has no schema from this version on.
	Deleted bool
	// Timestamp is when the version was stored, in Unix milliseconds.
	Timestamp int64
}

// Errors of the registry. Match them with errors.Is; the broker answers
// ErrIncompatible and ErrInvalid with ServerError IncompatibleSchema and
// ErrNotFound with TopicNotFound, as Pulsar does.
var (
	// ErrIncompatible is Pulsar's IncompatibleSchemaException.
	ErrIncompatible = errors.New("incompatible schema")
	// ErrInvalid is Pulsar's InvalidSchemaDataException: schema data that
	// does not parse for its type.
	ErrInvalid = errors.New("invalid schema data")
	// ErrNotFound is returned for a schema id or version that has no schema.
	ErrNotFound = errors.New("schema not found")
)

// VersionBytes encodes a version as Pulsar does: 8 bytes, big-endian.
func VersionBytes(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// ParseVersion decodes a version encoded by VersionBytes. Like Pulsar's
// LongSchemaVersion, it reads the first 8 bytes; shorter input is an
// ErrInvalid (Pulsar's broker fails on it with a BufferUnderflowException).
func ParseVersion(b []byte) (int64, error) {
	if len(b) < 8 {
		return 0, fmt.Errorf("%w: schema version of %d bytes, want 8", ErrInvalid, len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// Strategy is a schema compatibility strategy (Pulsar's
// SchemaCompatibilityStrategy).
type Strategy int

// Strategies. Undefined means "inherit": a topic or namespace policy of
// Undefined falls back to the next level, and the broker's default is FULL,
// Pulsar's schemaCompatibilityStrategy default.
const (
	Undefined Strategy = iota
	AlwaysIncompatible
	AlwaysCompatible
	Backward
	Forward
	Full
	BackwardTransitive
	ForwardTransitive
	FullTransitive
)

var strategyNames = []string{"UNDEFINED", "ALWAYS_INCOMPATIBLE", "ALWAYS_COMPATIBLE", "BACKWARD",
	"FORWARD", "FULL", "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE", "FULL_TRANSITIVE"}

// String returns Pulsar's name of the strategy, e.g. "BACKWARD_TRANSITIVE".
func (s Strategy) String() string {
	if s >= 0 && int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// ParseStrategy parses a strategy name as Pulsar's config and admin API
// spell it (case-insensitive, e.g. "Full" or "BACKWARD_TRANSITIVE").
func ParseStrategy(s string) (Strategy, error) {
	for i, n := range strategyNames {
		if strings.EqualFold(s, n) {
			return Strategy(i), nil
		}
	}
	return Undefined, fmt.Errorf("schema: unknown compatibility strategy %q", s)
}

func (s Strategy) transitive() bool {
	return s == BackwardTransitive || s == ForwardTransitive || s == FullTransitive
}
