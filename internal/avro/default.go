package avro

// Field defaults, held as the values the JSON of the schema writes them
// as: the official client's library converts a default to the Go type of
// its schema (int for int, int64 for long, float32 for float, []byte for
// bytes, [size]byte for fixed) and writes that back.

// nullDefault is the default of a null type (written as null).
type nullDefault struct{}

// fixedDefault is the default of a fixed: its bytes, cut or padded with
// zeros to size (written as an array of numbers).
type fixedDefault struct {
	b    []byte
	size int
}

// maxFixedDefault bounds the size of a fixed that has a default, whose
// JSON holds a number per byte.
const maxFixedDefault = 1 << 20

// validDefault converts def, a default as parsed from JSON, to the value
// kept for a field of type n; ok is false when def is not a value of n (a
// union's default is one of its first branch; the empty union has none).
func validDefault(n *node, def any, depth int) (any, bool) {
	if depth > MaxDepth {
		return nil, false
	}
	switch n.kind {
	case Null:
		return nullDefault{}, def == nil
	case Boolean:
		_, ok := def.(bool)
		return def, ok
	// A nested record's field default comes back already converted.
	case Int:
		if i, ok := def.(int); ok {
			return i, true
		}
		f, ok := def.(float64)
		return int(f), ok
	case Long:
		if i, ok := def.(int64); ok {
			return i, true
		}
		f, ok := def.(float64)
		return int64(f), ok
	case Float:
		if f, ok := def.(float32); ok {
			return f, true
		}
		f, ok := def.(float64)
		return float32(f), ok
	case Double:
		_, ok := def.(float64)
		return def, ok
	case String:
		_, ok := def.(string)
		return def, ok
	case Enum:
		s, ok := def.(string)
		if !ok {
			return def, false
		}
		for _, sym := range n.symbols {
			if s == sym {
				return def, true
			}
		}
		return def, false
	case Bytes, Fixed:
		s, ok := def.(string)
		if !ok {
			return nil, false
		}
		b, ok := latin1(s)
		if !ok {
			return nil, false
		}
		if n.kind == Fixed {
			if n.size > maxFixedDefault {
				return nil, false
			}
			if len(b) > n.size {
				b = b[:n.size]
			}
			return fixedDefault{b: b, size: n.size}, true
		}
		return b, true
	case Array:
		arr, ok := def.([]any)
		if !ok {
			return nil, false
		}
		for i, v := range arr {
			if arr[i], ok = validDefault(n.items, v, depth+1); !ok {
				return nil, false
			}
		}
		return arr, true
	case Map:
		m, ok := def.(map[string]any)
		if !ok {
			return nil, false
		}
		for k, v := range m {
			if m[k], ok = validDefault(n.values, v, depth+1); !ok {
				return nil, false
			}
		}
		return m, true
	case Union:
		if len(n.types) == 0 { // [] is a type with no values, so no default
			return nil, false
		}
		return validDefault(n.types[0], def, depth+1)
	case Record:
		m, ok := def.(map[string]any)
		if !ok || n.incomplete { // the record being parsed: its fields are not all known
			return nil, false
		}
		for _, f := range n.fields {
			v, given := m[f.name]
			if !given {
				v = f.defaultValue()
			}
			if m[f.name], ok = validDefault(f.typ, v, depth+1); !ok {
				return nil, false
			}
		}
		return m, true
	}
	return nil, false
}

// defaultValue is the field's default as a record default's fields take
// it: nil for null or none, else the converted value (so that a bytes or
// fixed default there is refused, as the official client's library does).
func (f *field) defaultValue() any {
	if _, ok := f.def.(nullDefault); ok {
		return nil
	}
	return f.def
}

func (d fixedDefault) bytes() []byte {
	out := make([]byte, d.size)
	copy(out, d.b)
	return out
}

// latin1 maps each code point 0-255 of s to a byte, as the specification
// writes bytes and fixed defaults.
func latin1(s string) ([]byte, bool) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < 0 || r > 255 {
			return nil, false
		}
		b = append(b, byte(r))
	}
	return b, true
}
