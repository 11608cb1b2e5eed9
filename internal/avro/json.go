package avro

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON returns the schema as the official Go client sends it in a
// SchemaInfo (json.Marshal of its library's parsed schema): named types
// by full name without "namespace", each defined where it first occurs
// and named after; attributes in the library's order (name, aliases, doc,
// type, then the type's own), a field's order only when not ascending,
// defaults converted to the field's type, other attributes sorted by key
// after them; strings escaped as encoding/json escapes them, except
// control characters other than \n, \r and \t, which are \u00XX.
func (s *Schema) MarshalJSON() ([]byte, error) {
	w := &jsonWriter{seen: map[*node]bool{}}
	w.node(s.root)
	return w.buf, w.err
}

type jsonWriter struct {
	buf  []byte
	seen map[*node]bool
	err  error
}

func (w *jsonWriter) raw(s string) { w.buf = append(w.buf, s...) }

func (w *jsonWriter) node(n *node) {
	switch n.kind {
	case Record, Enum, Fixed:
		if w.seen[n] {
			w.str(n.full)
			return
		}
		w.seen[n] = true
		w.raw(`{"name":`)
		w.str(n.full)
		if len(n.aliases) > 0 {
			w.raw(`,"aliases":`)
			w.value(n.aliases, 0)
		}
		if n.doc != "" && n.kind != Fixed {
			w.raw(`,"doc":`)
			w.str(n.doc)
		}
	}
	switch n.kind {
	case Record:
		if n.isError {
			w.raw(`,"type":"error"`)
		} else {
			w.raw(`,"type":"record"`)
		}
		w.raw(`,"fields":[`)
		for i, f := range n.fields {
			if i > 0 {
				w.raw(",")
			}
			w.field(f)
		}
		w.raw("]")
	case Enum:
		w.raw(`,"type":"enum","symbols":`)
		w.value(n.symbols, 0)
		if n.enumDefault != "" {
			w.raw(`,"default":`)
			w.str(n.enumDefault)
		}
	case Fixed:
		w.raw(`,"type":"fixed","size":` + strconv.Itoa(n.size))
		w.logical(n)
	case Array:
		w.raw(`{"type":"array","items":`)
		w.node(n.items)
	case Map:
		w.raw(`{"type":"map","values":`)
		w.node(n.values)
	case Union:
		w.raw("[")
		for i, t := range n.types {
			if i > 0 {
				w.raw(",")
			}
			w.node(t)
		}
		w.raw("]")
		return
	default: // primitives
		if n.logical == "" && len(n.props) == 0 {
			w.str(n.kind.String())
			return
		}
		w.raw(`{"type":`)
		w.str(n.kind.String())
		w.logical(n)
	}
	w.props(n.props)
	w.raw("}")
}

func (w *jsonWriter) logical(n *node) {
	if n.logical == "" {
		return
	}
	w.raw(`,"logicalType":`)
	w.str(n.logical)
	if n.logical == "decimal" {
		w.raw(`,"precision":` + strconv.Itoa(n.precision))
		if n.scale > 0 {
			w.raw(`,"scale":` + strconv.Itoa(n.scale))
		}
	}
}

func (w *jsonWriter) field(f *field) {
	w.raw(`{"name":`)
	w.str(f.name)
	if len(f.aliases) > 0 {
		w.raw(`,"aliases":`)
		w.value(f.aliases, 0)
	}
	if f.doc != "" {
		w.raw(`,"doc":`)
		w.str(f.doc)
	}
	w.raw(`,"type":`)
	w.node(f.typ)
	if f.hasDef {
		w.raw(`,"default":`)
		w.value(f.def, 0)
	}
	if f.order != "" && f.order != "ascending" {
		w.raw(`,"order":`)
		w.str(f.order)
	}
	w.props(f.props)
	w.raw("}")
}

// props writes the properties sorted by key, each after a comma.
func (w *jsonWriter) props(p map[string]any) {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.raw(",")
		w.str(k)
		w.raw(":")
		w.value(p[k], 0)
	}
}

// value writes a property or default value.
func (w *jsonWriter) value(v any, depth int) {
	if depth > MaxDepth {
		w.err = fmt.Errorf("avro: value nested deeper than %d", MaxDepth)
		return
	}
	switch x := v.(type) {
	case nil, nullDefault:
		w.raw("null")
	case bool:
		w.raw(strconv.FormatBool(x))
	case string:
		w.str(x)
	case int:
		w.raw(strconv.Itoa(x))
	case int64:
		w.raw(strconv.FormatInt(x, 10))
	case float32:
		w.float(float64(x), 32)
	case float64:
		w.float(x, 64)
	case []byte:
		w.str(base64.StdEncoding.EncodeToString(x))
	case fixedDefault:
		w.raw("[")
		for i := range x.size {
			if i > 0 {
				w.raw(",")
			}
			b := byte(0)
			if i < len(x.b) {
				b = x.b[i]
			}
			w.raw(strconv.Itoa(int(b)))
		}
		w.raw("]")
	case []string:
		w.raw("[")
		for i, s := range x {
			if i > 0 {
				w.raw(",")
			}
			w.str(s)
		}
		w.raw("]")
	case []any:
		w.raw("[")
		for i, e := range x {
			if i > 0 {
				w.raw(",")
			}
			w.value(e, depth+1)
		}
		w.raw("]")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.raw("{")
		for i, k := range keys {
			if i > 0 {
				w.raw(",")
			}
			w.str(k)
			w.raw(":")
			w.value(x[k], depth+1)
		}
		w.raw("}")
	default:
		w.err = fmt.Errorf("avro: cannot write %T as JSON", v)
	}
}

// float writes f as the shortest decimal that reads back as f, with an
// exponent below 1e-6 and from 1e21.
func (w *jsonWriter) float(f float64, bits int) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		w.err = fmt.Errorf("avro: unsupported value: %v", f)
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) || bits == 64 && (abs < 1e-6 || abs >= 1e21) {
			format = 'e'
		}
	}
	w.buf = strconv.AppendFloat(w.buf, f, format, -1, bits)
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string: ", \ and control characters escaped
// (\n, \r, \t, else \u00XX), <, > and & as \u003c, \u003e, \u0026, U+2028
// and U+2029 escaped, invalid UTF-8 (and the code points standing for the
// document's invalid bytes, see markInvalidUTF8) as \ufffd.
func (w *jsonWriter) str(s string) {
	w.buf = append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			w.buf = append(w.buf, s[start:i]...)
			switch b {
			case '"', '\\':
				w.buf = append(w.buf, '\\', b)
			case '\n':
				w.buf = append(w.buf, '\\', 'n')
			case '\r':
				w.buf = append(w.buf, '\\', 'r')
			case '\t':
				w.buf = append(w.buf, '\\', 't')
			default:
				w.buf = append(w.buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r >= invalidByteFirst && r <= invalidByteBase+0xff {
			w.buf = append(w.buf, s[start:i]...)
			w.buf = append(w.buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			w.buf = append(w.buf, s[start:i]...)
			w.buf = append(w.buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	w.buf = append(w.buf, s[start:]...)
	w.buf = append(w.buf, '"')
}
