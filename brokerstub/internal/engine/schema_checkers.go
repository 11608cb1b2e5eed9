package engine

import (
	"errors"
	"slices"
	"strings"
)

// schemaCheckerPrefix is the package of Pulsar's schema compatibility
// checkers.
const schemaCheckerPrefix = "org.apache.pulsar.broker.service.schema."

// defaultSchemaCheckers are Pulsar 4.x's schemaRegistryCompatibilityCheckers:
// AVRO, JSON and PROTOBUF_NATIVE get their own checks, every other type the
// default one (only ALWAYS_INCOMPATIBLE refuses). brokerstub's schema
// registry checks exactly these; ExternalSchemaCompatibilityCheck (added to
// the default in 4.2) may be listed too, as it checks only EXTERNAL
// schemas, which brokerstub refuses anyway.
var defaultSchemaCheckers = []string{"AvroSchemaCompatibilityCheck", "JsonSchemaCompatibilityCheck", "ProtobufNativeSchemaCompatibilityCheck"}

// errSchemaCheckers says why another set of checkers is refused.
var errSchemaCheckers = errors.New("brokerstub checks AVRO, JSON and PROTOBUF_NATIVE schemas as Pulsar's default checkers do and cannot load others or leave one out; " +
	"remove the key or list exactly " + schemaCheckerPrefix + "AvroSchemaCompatibilityCheck, JsonSchemaCompatibilityCheck and ProtobufNativeSchemaCompatibilityCheck")

// CheckSchemaCheckers accepts a schemaRegistryCompatibilityCheckers value
// that names Pulsar's default checkers, in any order, and refuses any other.
func CheckSchemaCheckers(v string) error {
	var got []string
	for _, c := range strings.Split(v, ",") {
		c = strings.TrimPrefix(strings.TrimSpace(c), schemaCheckerPrefix)
		if c == "" || c == "ExternalSchemaCompatibilityCheck" || slices.Contains(got, c) {
			continue
		}
		got = append(got, c)
	}
	slices.Sort(got)
	if !slices.Equal(got, defaultSchemaCheckers) {
		return errSchemaCheckers
	}
	return nil
}
