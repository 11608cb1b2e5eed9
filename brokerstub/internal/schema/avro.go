package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Limits of the Avro parser, so that schema data a client sends costs
// bounded time and memory whatever it claims.
const (
	maxAvroDepth = 64
	maxAvroNodes = 20_000
)

// avroNode is a parsed Avro schema: just what equality and the resolution
// rules need.
type avroNode struct {
	kind    string // primitive name, "record", "enum", "fixed", "array", "map", "union"
	name    string // full name of a named type
	fields  []avroField
	symbols []string
	enumDef string // enum default symbol, "" when none
	size    int    // fixed
	items   *avroNode
	branch  []*avroNode
}

type avroField struct {
	name       string
	aliases    []string
	typ        *avroNode
	hasDefault bool
}

var avroPrimitives = []string{"null", "boolean", "int", "long", "float", "double", "bytes", "string"}

type avroParser struct {
	named map[string]*avroNode
	nodes int
}

// parseAvro parses an Avro schema document (JSON). It returns the schema and
// its canonical form, equal for two documents exactly when Avro's
// Schema.equals holds: whitespace, attribute order, doc and aliases do not
// count; names, fields, defaults and other properties do. A named type
// appears in full where it is defined and by name where it is referred to,
// so the form grows with the document, never with the number of references.
func parseAvro(data []byte) (*avroNode, string, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, "", fmt.Errorf("%w: not an Avro schema: %v", ErrInvalid, err)
	}
	if d.More() {
		return nil, "", fmt.Errorf("%w: trailing data after the Avro schema", ErrInvalid)
	}
	p := &avroParser{named: map[string]*avroNode{}}
	return p.parse(v, "", 0)
}

func (p *avroParser) parse(v any, ns string, depth int) (*avroNode, string, error) {
	p.nodes++
	if depth > maxAvroDepth || p.nodes > maxAvroNodes {
		return nil, "", fmt.Errorf("%w: Avro schema nested deeper than %d or larger than %d nodes", ErrInvalid, maxAvroDepth, maxAvroNodes)
	}
	switch x := v.(type) {
	case string:
		if slices.Contains(avroPrimitives, x) {
			return &avroNode{kind: x}, `"` + x + `"`, nil
		}
		full := fullName(x, ns)
		if n, ok := p.named[full]; ok {
			return n, `"` + full + `"`, nil
		}
		return nil, "", fmt.Errorf("%w: undefined Avro name %q", ErrInvalid, x)
	case []any:
		n := &avroNode{kind: "union"}
		var canon []string
		for _, b := range x {
			bn, bc, err := p.parse(b, ns, depth+1)
			if err != nil {
				return nil, "", err
			}
			if bn.kind == "union" {
				return nil, "", fmt.Errorf("%w: Avro union inside a union", ErrInvalid)
			}
			n.branch = append(n.branch, bn)
			canon = append(canon, bc)
		}
		return n, "[" + strings.Join(canon, ",") + "]", nil
	case map[string]any:
		return p.parseObject(x, ns, depth)
	}
	return nil, "", fmt.Errorf("%w: Avro schema must be a string, array or object", ErrInvalid)
}

// props returns the canonical JSON of the attributes Avro's equality
// compares beyond the structure (custom properties, logicalType, …).
func props(x map[string]any, reserved ...string) string {
	skip := append([]string{"type", "doc", "aliases"}, reserved...)
	m := map[string]any{}
	for k, v := range x {
		if !slices.Contains(skip, k) {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m) // map keys are sorted
	return string(b)
}

func (p *avroParser) parseObject(x map[string]any, ns string, depth int) (*avroNode, string, error) {
	t, ok := x["type"]
	if !ok {
		return nil, "", fmt.Errorf("%w: Avro schema object without type", ErrInvalid)
	}
	kind, _ := t.(string)
	switch kind {
	case "record", "error", "enum", "fixed":
		return p.parseNamed(kind, x, ns, depth)
	case "array", "map":
		key := map[string]string{"array": "items", "map": "values"}[kind]
		it, ok := x[key]
		if !ok {
			return nil, "", fmt.Errorf("%w: Avro %s without %s", ErrInvalid, kind, key)
		}
		in, ic, err := p.parse(it, ns, depth+1)
		if err != nil {
			return nil, "", err
		}
		return &avroNode{kind: kind, items: in}, `{"` + kind + `":` + ic + props(x, key) + "}", nil
	}
	// {"type": "int", "logicalType": ...} or {"type": {...}}.
	in, ic, err := p.parse(t, ns, depth+1)
	if err != nil {
		return nil, "", err
	}
	if extra := props(x); extra != "{}" {
		ic += extra
	}
	return in, ic, nil
}

func (p *avroParser) parseNamed(kind string, x map[string]any, ns string, depth int) (*avroNode, string, error) {
	name, _ := x["name"].(string)
	if name == "" {
		return nil, "", fmt.Errorf("%w: Avro %s without a name", ErrInvalid, kind)
	}
	if s, ok := x["namespace"].(string); ok && !strings.Contains(name, ".") {
		ns = s
	}
	full := fullName(name, ns)
	if i := strings.LastIndex(full, "."); i >= 0 {
		ns = full[:i]
	} else {
		ns = ""
	}
	if _, dup := p.named[full]; dup || slices.Contains(avroPrimitives, full) {
		return nil, "", fmt.Errorf("%w: Avro name %q defined twice or reserved", ErrInvalid, full)
	}
	if kind == "error" {
		kind = "record"
	}
	n := &avroNode{kind: kind, name: full}
	var c string
	p.named[full] = n // before the fields: records may refer to themselves
	switch kind {
	case "record":
		fs, ok := x["fields"].([]any)
		if !ok {
			return nil, "", fmt.Errorf("%w: Avro record %s without fields", ErrInvalid, full)
		}
		var canon []string
		for _, f := range fs {
			fm, ok := f.(map[string]any)
			if !ok {
				return nil, "", fmt.Errorf("%w: Avro field of %s is not an object", ErrInvalid, full)
			}
			fname, _ := fm["name"].(string)
			if fname == "" {
				return nil, "", fmt.Errorf("%w: Avro field of %s without a name", ErrInvalid, full)
			}
			ft, ok := fm["type"]
			if !ok {
				return nil, "", fmt.Errorf("%w: Avro field %s.%s without a type", ErrInvalid, full, fname)
			}
			tn, tc, err := p.parse(ft, ns, depth+1)
			if err != nil {
				return nil, "", err
			}
			def, hasDef := fm["default"]
			af := avroField{name: fname, typ: tn, hasDefault: hasDef}
			if al, ok := fm["aliases"].([]any); ok {
				for _, a := range al {
					if s, ok := a.(string); ok {
						af.aliases = append(af.aliases, s)
					}
				}
			}
			n.fields = append(n.fields, af)
			d, _ := json.Marshal(def)
			canon = append(canon, `{"`+fname+`":`+tc+`,"default":`+string(d)+props(fm, "name", "default")+"}")
		}
		c = `{"record":"` + full + `","fields":[` + strings.Join(canon, ",") + "]" + props(x, "name", "namespace", "fields") + "}"
	case "enum":
		syms, ok := x["symbols"].([]any)
		if !ok {
			return nil, "", fmt.Errorf("%w: Avro enum %s without symbols", ErrInvalid, full)
		}
		for _, s := range syms {
			str, ok := s.(string)
			if !ok || slices.Contains(n.symbols, str) {
				return nil, "", fmt.Errorf("%w: bad symbol in Avro enum %s", ErrInvalid, full)
			}
			n.symbols = append(n.symbols, str)
		}
		n.enumDef, _ = x["default"].(string)
		b, _ := json.Marshal(n.symbols)
		c = `{"enum":"` + full + `","symbols":` + string(b) + props(x, "name", "namespace", "symbols") + "}"
	case "fixed":
		sz, ok := x["size"].(json.Number)
		size, err := sz.Int64()
		if !ok || err != nil || size < 0 {
			return nil, "", fmt.Errorf("%w: Avro fixed %s without a valid size", ErrInvalid, full)
		}
		n.size = int(size)
		c = fmt.Sprintf(`{"fixed":%q,"size":%d%s}`, full, size, props(x, "name", "namespace", "size"))
	}
	return n, c, nil
}

func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func shortName(full string) string { return full[strings.LastIndex(full, ".")+1:] }

// canRead reports why a reader with schema r cannot read data written with
// schema w under Avro's schema resolution rules (Avro's
// SchemaCompatibility.checkReaderWriterCompatibility), or "" when it can.
func canRead(r, w *avroNode) string {
	return (&resolver{seen: map[[2]*avroNode]bool{}}).check(r, w, "")
}

type resolver struct{ seen map[[2]*avroNode]bool }

func (rs *resolver) check(r, w *avroNode, path string) string {
	if r.name != "" && w.name != "" {
		key := [2]*avroNode{r, w}
		if rs.seen[key] {
			return "" // recursive types: assume compatible, as Avro does
		}
		rs.seen[key] = true
	}
	if w.kind == "union" {
		for _, b := range w.branch {
			if why := rs.check(r, b, path); why != "" {
				return why
			}
		}
		return ""
	}
	if r.kind == "union" {
		for _, b := range r.branch {
			if rs.check(b, w, path) == "" {
				return ""
			}
		}
		return fmt.Sprintf("%s: reader union lacks writer type %s", at(path), w.kind)
	}
	if r.kind != w.kind {
		if promotes(w.kind, r.kind) {
			return ""
		}
		return fmt.Sprintf("%s: reader type %s does not match writer type %s", at(path), r.kind, w.kind)
	}
	if r.name != "" && shortName(r.name) != shortName(w.name) {
		return fmt.Sprintf("%s: reader name %s does not match writer name %s", at(path), r.name, w.name)
	}
	switch r.kind {
	case "record":
		for _, rf := range r.fields {
			wf := findField(w, rf)
			if wf == nil {
				if !rf.hasDefault {
					return fmt.Sprintf("%s: reader field %q has no default and is missing from the writer", at(path), rf.name)
				}
				continue
			}
			if why := rs.check(rf.typ, wf.typ, path+"/"+rf.name); why != "" {
				return why
			}
		}
	case "enum":
		if r.enumDef == "" {
			for _, s := range w.symbols {
				if !slices.Contains(r.symbols, s) {
					return fmt.Sprintf("%s: reader enum lacks symbol %s", at(path), s)
				}
			}
		}
	case "fixed":
		if r.size != w.size {
			return fmt.Sprintf("%s: fixed size %d does not match writer size %d", at(path), r.size, w.size)
		}
	case "array", "map":
		return rs.check(r.items, w.items, path+"/"+r.kind)
	}
	return ""
}

func at(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// findField returns the writer's field that the reader field rf reads: by
// name, or by one of rf's aliases.
func findField(w *avroNode, rf avroField) *avroField {
	for i := range w.fields {
		if w.fields[i].name == rf.name {
			return &w.fields[i]
		}
	}
	for i := range w.fields {
		if slices.Contains(rf.aliases, w.fields[i].name) {
			return &w.fields[i]
		}
	}
	return nil
}

// promotes reports whether Avro promotes a written type to a read type.
func promotes(writer, reader string) bool {
	switch writer {
	case "int":
		return reader == "long" || reader == "float" || reader == "double"
	case "long":
		return reader == "float" || reader == "double"
	case "float":
		return reader == "double"
	case "string":
		return reader == "bytes"
	case "bytes":
		return reader == "string"
	}
	return false
}
