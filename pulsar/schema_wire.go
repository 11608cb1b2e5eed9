package pulsar

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// schemaProto is the protocol's form of info, as the official client sends
// it: name, the definition's bytes, the type's number and the properties
// (here sorted by key; the official client sends them in map order).
func schemaProto(info *SchemaInfo) *proto.Schema {
	if info == nil {
		return nil
	}
	t := proto.Schema_Type(int32(info.Type))
	s := &proto.Schema{Name: gproto.String(info.Name), SchemaData: []byte(info.Schema), Type: &t}
	for _, k := range slices.Sorted(maps.Keys(info.Properties)) {
		s.Properties = append(s.Properties, &proto.KeyValue{Key: gproto.String(k), Value: gproto.String(info.Properties[k])})
	}
	return s
}

// schemaKey identifies a schema for the producer's version cache and
// DisableMultiSchema: type, definition and properties. (The official
// client keys by the definition only, so that a STRING and a BYTES schema,
// both without definition, share a version there.)
func schemaKey(info *SchemaInfo) string {
	if info == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(info.Type)))
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(len(info.Schema)))
	b.WriteByte(0)
	b.WriteString(info.Schema)
	for _, k := range slices.SortedFunc(maps.Keys(info.Properties), cmp.Compare[string]) {
		v := info.Properties[k]
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(0)
		b.WriteString(v)
	}
	return b.String()
}
