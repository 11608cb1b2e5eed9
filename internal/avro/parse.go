package avro

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Attributes that the specification gives a meaning, per type; any other
// attribute of a type is kept as a property and written back with it.
var (
	recordAttrs    = []string{"type", "name", "namespace", "doc", "aliases", "fields"}
	fieldAttrs     = []string{"name", "doc", "type", "order", "aliases", "default"}
	enumAttrs      = []string{"type", "name", "namespace", "aliases", "doc", "symbols", "default"}
	arrayAttrs     = []string{"type", "items"}
	mapAttrs       = []string{"type", "values"}
	fixedAttrs     = []string{"type", "name", "namespace", "aliases", "size"}
	primitiveAttrs = []string{"type"}
	logicalAttrs   = []string{"logicalType"}
	decimalAttrs   = []string{"logicalType", "precision", "scale"}
)

// Parse parses an Avro schema document: a JSON schema declaration, or a
// bare type name (`string`) when the text is not JSON. Names resolve only
// to types the document itself defines.
func Parse(def string) (*Schema, error) {
	var doc any
	if err := json.Unmarshal(markInvalidUTF8(def), &doc); err != nil {
		doc = def
	}
	p := &parser{names: map[string]*node{}, defined: map[string]bool{}}
	root, err := p.parseType("", doc)
	if err != nil {
		return nil, err
	}
	setMinSizes(root, map[*node]bool{})
	return &Schema{root: root}, nil
}

// Bytes of a document that are not UTF-8: the official client's library
// keeps them as they are and writes each back as \ufffd, where
// encoding/json would turn them into U+FFFD characters on reading. Each is
// read as a code point of its own, U+10FF80 to U+10FFFF (private use), and
// the JSON writer writes those as \ufffd.
const (
	invalidByteBase  = 0x10FF00
	invalidByteFirst = invalidByteBase + 0x80
)

// markInvalidUTF8 returns def with each byte that is not UTF-8 replaced by
// its private-use code point.
func markInvalidUTF8(def string) []byte {
	if utf8.ValidString(def) {
		return []byte(def)
	}
	out := make([]byte, 0, len(def)+16)
	for i := 0; i < len(def); {
		r, size := utf8.DecodeRuneInString(def[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, rune(invalidByteBase+int(def[i])))
		} else {
			out = append(out, def[i:i+size]...)
		}
		i += size
	}
	return out
}

// parser holds the named types of one document.
type parser struct {
	names   map[string]*node // full names and aliases
	defined map[string]bool  // full names defined
}

func (p *parser) parseType(ns string, v any) (*node, error) {
	switch x := v.(type) {
	case nil:
		return &node{kind: Null}, nil
	case string:
		return p.parseName(ns, x)
	case map[string]any:
		return p.parseObject(ns, x)
	case []any:
		return p.parseUnion(ns, x)
	}
	return nil, fmt.Errorf("avro: unknown type: %v", v)
}

var primitiveKinds = map[string]Kind{"null": Null, "boolean": Boolean, "int": Int, "long": Long,
	"float": Float, "double": Double, "bytes": Bytes, "string": String}

func (p *parser) parseName(ns, s string) (*node, error) {
	if k, ok := primitiveKinds[s]; ok {
		return &node{kind: k}, nil
	}
	if n := p.names[fullName(ns, s)]; n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("avro: unknown type: %s", s)
}

func fullName(ns, name string) string {
	if ns == "" || strings.ContainsRune(name, '.') {
		return name
	}
	return ns + "." + name
}

func (p *parser) parseObject(ns string, m map[string]any) (*node, error) {
	if u, ok := m["type"].([]any); ok {
		return p.parseUnion(ns, u)
	}
	typ, ok := m["type"].(string)
	if !ok {
		return nil, fmt.Errorf("avro: unknown type: %+v", m)
	}
	if k, ok := primitiveKinds[typ]; ok {
		return parsePrimitive(k, m), nil
	}
	switch typ {
	case "record", "error":
		return p.parseRecord(ns, m, typ == "error")
	case "enum":
		return p.parseEnum(ns, m)
	case "array":
		a, err := p.child(ns, m, "items", "avro: array must have an items key")
		if err != nil {
			return nil, err
		}
		return &node{kind: Array, items: a, props: props(m, arrayAttrs)}, nil
	case "map":
		v, err := p.child(ns, m, "values", "avro: map must have an values key")
		if err != nil {
			return nil, err
		}
		return &node{kind: Map, values: v, props: props(m, mapAttrs)}, nil
	case "fixed":
		return p.parseFixed(ns, m)
	}
	return p.parseName(ns, typ)
}

func (p *parser) child(ns string, m map[string]any, key, missing string) (*node, error) {
	v, ok := m[key]
	if !ok {
		return nil, errors.New(missing)
	}
	return p.parseType(ns, v)
}

// parsePrimitive is a primitive type written as an object: a logical type
// the library knows is kept as such, anything else as properties.
func parsePrimitive(k Kind, m map[string]any) *node {
	n := &node{kind: k}
	attrs := primitiveAttrs
	lt, _ := m["logicalType"].(string)
	switch {
	case k == String && lt == "uuid", k == Int && (lt == "date" || lt == "time-millis"),
		k == Long && (lt == "time-micros" || lt == "timestamp-millis" || lt == "timestamp-micros" ||
			lt == "local-timestamp-millis" || lt == "local-timestamp-micros"):
		n.logical, attrs = lt, logicalAttrs
	case k == Bytes && lt == "decimal":
		if prec, scale, ok := decimal(-1, m); ok {
			n.logical, n.precision, n.scale, attrs = lt, prec, scale, decimalAttrs
		}
	}
	n.props = props(m, primitiveAttrs, attrs)
	return n
}

func (p *parser) parseRecord(ns string, m map[string]any, isError bool) (*node, error) {
	nm, err := p.named(ns, m)
	if err != nil {
		return nil, err
	}
	if _, ok := m["fields"]; !ok {
		return nil, errors.New("avro: record must have an array of fields")
	}
	var raw []map[string]any
	if v := m["fields"]; v != nil {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("avro: error decoding record: fields is %T, not an array", v)
		}
		for _, f := range list {
			fm, ok := f.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("avro: error decoding record: a field is %T, not an object", f)
			}
			raw = append(raw, fm)
		}
	}
	doc, err := str(m, "doc")
	if err != nil {
		return nil, err
	}
	nm.kind, nm.doc, nm.isError, nm.props = Record, doc, isError, props(m, recordAttrs)
	if err := p.define(nm); err != nil {
		return nil, err
	}
	nm.incomplete = true
	defer func() { nm.incomplete = false }()
	seen := map[string]bool{}
	for _, fm := range raw {
		f, err := p.parseField(nm.namespace, fm)
		if err != nil {
			return nil, err
		}
		if seen[f.name] {
			return nil, fmt.Errorf("avro: duplicate field name %q", f.name)
		}
		seen[f.name] = true
		nm.fields = append(nm.fields, f)
	}
	return nm, nil
}

func (p *parser) parseField(ns string, m map[string]any) (*field, error) {
	name, err := str(m, "name")
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("avro: non-empty name key required")
	}
	aliases, err := strs(m, "aliases")
	if err != nil {
		return nil, err
	}
	doc, err := str(m, "doc")
	if err != nil {
		return nil, err
	}
	order, err := str(m, "order")
	if err != nil {
		return nil, err
	}
	if _, ok := m["type"]; !ok {
		return nil, errors.New("avro: field requires a type")
	}
	typ, err := p.parseType(ns, m["type"])
	if err != nil {
		return nil, err
	}
	if err := validateName(name); err != nil {
		return nil, err
	}
	for _, a := range aliases {
		if err := validateName(a); err != nil {
			return nil, err
		}
	}
	switch order {
	case "":
		order = "ascending"
	case "ascending", "descending", "ignore":
	default:
		return nil, fmt.Errorf("avro: field %q order %q is invalid", name, order)
	}
	f := &field{name: name, aliases: aliases, doc: doc, typ: typ, order: order, props: props(m, fieldAttrs)}
	if def, ok := m["default"]; ok {
		v, ok := validDefault(typ, def, 0)
		if !ok {
			return nil, fmt.Errorf("avro: invalid default for field %s. %+v not a %s", name, def, typ.kind)
		}
		f.def, f.hasDef = v, true
	}
	return f, nil
}

func (p *parser) parseEnum(ns string, m map[string]any) (*node, error) {
	nm, err := p.named(ns, m)
	if err != nil {
		return nil, err
	}
	doc, err := str(m, "doc")
	if err != nil {
		return nil, err
	}
	symbols, err := strs(m, "symbols")
	if err != nil {
		return nil, err
	}
	def, err := str(m, "default")
	if err != nil {
		return nil, err
	}
	if len(symbols) == 0 {
		return nil, errors.New("avro: enum must have a non-empty array of symbols")
	}
	seen := map[string]bool{}
	for _, s := range symbols {
		if validateName(s) != nil {
			return nil, fmt.Errorf("avro: invalid symbol %q", s)
		}
		if seen[s] {
			return nil, fmt.Errorf("avro: duplicate symbol %q", s)
		}
		seen[s] = true
	}
	if def != "" && !seen[def] {
		return nil, fmt.Errorf("avro: symbol default %q must be a symbol", def)
	}
	nm.kind, nm.doc, nm.symbols, nm.enumDefault, nm.props = Enum, doc, symbols, def, props(m, enumAttrs)
	return nm, p.define(nm)
}

func (p *parser) parseFixed(ns string, m map[string]any) (*node, error) {
	nm, err := p.named(ns, m)
	if err != nil {
		return nil, err
	}
	if _, ok := m["size"]; !ok {
		return nil, errors.New("avro: fixed must have a size")
	}
	size, err := integer(m, "size")
	if err != nil {
		return nil, err
	}
	attrs := fixedAttrs
	switch lt, _ := m["logicalType"].(string); {
	case lt == "duration" && size == 12:
		nm.logical, attrs = lt, logicalAttrs
	case lt == "decimal":
		if prec, scale, ok := decimal(size, m); ok {
			nm.logical, nm.precision, nm.scale, attrs = lt, prec, scale, decimalAttrs
		}
	}
	if size < 0 {
		return nil, errors.New("avro: fixed size cannot be negative")
	}
	nm.kind, nm.size, nm.props = Fixed, size, props(m, fixedAttrs, attrs)
	return nm, p.define(nm)
}

// decimal reads a decimal's precision and scale; ok is false when they do
// not make a decimal of size bytes (size -1: bytes of any length).
func decimal(size int, m map[string]any) (prec, scale int, ok bool) {
	prec, err1 := integer(m, "precision")
	scale, err2 := integer(m, "scale")
	if err1 != nil || err2 != nil || prec <= 0 || scale < 0 || scale > prec {
		return 0, 0, false
	}
	if size > 0 && prec > int(math.Round(math.Floor(math.Log10(2)*(8*float64(size)-1)))) {
		return 0, 0, false
	}
	return prec, scale, true
}

func (p *parser) parseUnion(ns string, list []any) (*node, error) {
	n := &node{kind: Union}
	seen := map[string]bool{}
	for _, v := range list {
		t, err := p.parseType(ns, v)
		if err != nil {
			return nil, err
		}
		if t.kind == Union {
			return nil, errors.New("avro: union type cannot be a union")
		}
		if seen[t.typeName()] {
			return nil, errors.New("avro: union type must be unique")
		}
		seen[t.typeName()] = true
		n.types = append(n.types, t)
	}
	return n, nil
}
