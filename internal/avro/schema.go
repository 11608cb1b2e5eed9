// Package avro is pulsargo's Avro implementation: it parses Avro schema
// documents (Apache Avro specification 1.12), writes a parsed schema as
// the JSON the official Pulsar Go client sends for it, and encodes and
// decodes Go values with Avro's binary encoding by reflection.
//
// The Go mapping is the one the official client's users rely on: a record
// is a struct (fields matched by their `avro:"name"` tag, else by field
// name) or a map[string]any; ["null", T] is a pointer (or a slice or map)
// that is nil for null; any other union is a map[string]any of one entry
// keyed by the branch's type name, or a Go value whose type names one
// branch; arrays are slices, maps are maps with string keys, bytes are
// []byte, fixed is [N]byte, enums are strings, and the timestamp, date and
// time logical types are time.Time and time.Duration, decimals *big.Rat.
// Decoding into an interface builds map[string]any, []any, int (int), int64
// (long), float32, float64, string, []byte and [N]byte values; a union of
// primitives there is its value, any other union a map[string]any of one
// entry.
//
// Decoding trusts nothing in the data: every length and item count is
// checked against the bytes left before anything is allocated for it,
// nesting is capped at MaxDepth and a malformed value is an error, never a
// panic.
package avro

import (
	"strconv"
	"strings"
	"sync"
)

// Kind is the type of a schema node.
type Kind uint8

// The kinds of schema nodes.
const (
	Null Kind = iota
	Boolean
	Int
	Long
	Float
	Double
	Bytes
	String
	Record
	Enum
	Array
	Map
	Union
	Fixed
)

var kindNames = [...]string{"null", "boolean", "int", "long", "float", "double", "bytes", "string",
	"record", "enum", "array", "map", "union", "fixed"}

// String is the kind's name in a schema document.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Schema is a parsed Avro schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	root   *node
	fields sync.Map // reflect.Type -> map[string][]int: structFields
}

// Type is the kind of the schema's root type.
func (s *Schema) Type() Kind { return s.root.kind }

// String returns the schema's Parsing Canonical Form (names qualified,
// only the attributes that matter to the encoding).
func (s *Schema) String() string {
	var b strings.Builder
	canonical(&b, s.root, map[*node]bool{})
	return b.String()
}

// node is one type of a schema. Named types (record, enum, fixed) are one
// node however often they are referred to; a reference is the same pointer.
type node struct {
	kind Kind

	// named types
	name, namespace, full string
	aliases               []string
	doc                   string
	isError               bool

	fields      []*field // record
	symbols     []string // enum
	enumDefault string   // enum; "" when none
	size        int      // fixed
	items       *node    // array
	values      *node    // map
	types       []*node  // union

	// logical is a logical type the library recognizes (its attributes
	// are then not kept in props); precision and scale are a decimal's.
	logical          string
	precision, scale int

	props map[string]any // attributes of no meaning to Avro, kept for the JSON

	minSize  int  // the fewest bytes a value takes (a bound for item counts)
	resolved bool // union: see resolvedUnion

	incomplete bool // a record whose fields are being parsed
}

// field is a record field.
type field struct {
	name    string
	aliases []string
	doc     string
	typ     *node
	hasDef  bool
	def     any // the default as validated (int, int64, float32, []byte, ...)
	order   string
	props   map[string]any
}

// typeName is the name a union branch goes by: a named type's full name,
// else its kind, with "."+logical type when it has one.
func (n *node) typeName() string {
	switch n.kind {
	case Record, Enum, Fixed:
		return n.full
	}
	if n.logical != "" {
		return n.kind.String() + "." + n.logical
	}
	return n.kind.String()
}

// canonical writes n's Parsing Canonical Form; a named type already
// written is its full name.
func canonical(b *strings.Builder, n *node, seen map[*node]bool) {
	switch n.kind {
	case Record, Enum, Fixed:
		if seen[n] {
			b.WriteString(strconv.Quote(n.full))
			return
		}
		seen[n] = true
	}
	switch n.kind {
	case Record:
		typ := "record"
		if n.isError {
			typ = "error"
		}
		b.WriteString(`{"name":` + strconv.Quote(n.full) + `,"type":"` + typ + `","fields":[`)
		for i, f := range n.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":` + strconv.Quote(f.name) + `,"type":`)
			canonical(b, f.typ, seen)
			b.WriteByte('}')
		}
		b.WriteString("]}")
	case Enum:
		b.WriteString(`{"name":` + strconv.Quote(n.full) + `,"type":"enum","symbols":[`)
		for i, s := range n.symbols {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(s))
		}
		b.WriteString("]}")
	case Fixed:
		b.WriteString(`{"name":` + strconv.Quote(n.full) + `,"type":"fixed","size":` + strconv.Itoa(n.size) + `}`)
	case Array:
		b.WriteString(`{"type":"array","items":`)
		canonical(b, n.items, seen)
		b.WriteByte('}')
	case Map:
		b.WriteString(`{"type":"map","values":`)
		canonical(b, n.values, seen)
		b.WriteByte('}')
	case Union:
		b.WriteByte('[')
		for i, t := range n.types {
			if i > 0 {
				b.WriteByte(',')
			}
			canonical(b, t, seen)
		}
		b.WriteByte(']')
	default:
		b.WriteString(`"` + n.kind.String() + `"`)
	}
}
