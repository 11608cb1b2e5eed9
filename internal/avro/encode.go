package avro

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Marshal returns the Avro binary encoding of v, a value of the schema
// (see the package documentation for the Go types each schema type
// takes). Map entries are written in key order.
func (s *Schema) Marshal(v any) ([]byte, error) {
	e := &encoder{s: s}
	if err := e.encode(s.root, reflect.ValueOf(v), 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type encoder struct {
	s   *Schema
	buf []byte
}

func (e *encoder) long(v int64) {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		e.buf = append(e.buf, byte(u)|0x80)
		u >>= 7
	}
	e.buf = append(e.buf, byte(u))
}

func (e *encoder) bytes(b []byte) {
	e.long(int64(len(b)))
	e.buf = append(e.buf, b...)
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	bytesType    = reflect.TypeFor[[]byte]()
	anyMapType   = reflect.TypeFor[map[string]any]()
)

// indirect unwraps interfaces and pointers; nil is an invalid Value.
func indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

func typeErr(n *node, v reflect.Value) error {
	if !v.IsValid() {
		return fmt.Errorf("avro: nil is not a value of %s", n.kind)
	}
	return fmt.Errorf("avro: %s is unsupported for Avro %s", v.Type(), n.kind)
}

func (e *encoder) encode(n *node, v reflect.Value, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("avro: value nested deeper than %d", MaxDepth)
	}
	if n.kind == Union {
		return e.union(n, v, depth)
	}
	v = indirect(v)
	if n.kind == Null {
		return nil
	}
	if !v.IsValid() {
		return typeErr(n, v)
	}
	switch n.kind {
	case Boolean:
		if v.Kind() != reflect.Bool {
			return typeErr(n, v)
		}
		if v.Bool() {
			e.buf = append(e.buf, 1)
		} else {
			e.buf = append(e.buf, 0)
		}
		return nil
	case Int, Long:
		i, err := integerOf(n, v)
		if err != nil {
			return err
		}
		if n.kind == Int && (i < math.MinInt32 || i > math.MaxInt32) {
			return fmt.Errorf("avro: %d overflows Avro int", i)
		}
		e.long(i)
		return nil
	case Float, Double:
		var f float64
		switch v.Kind() {
		case reflect.Float32, reflect.Float64:
			f = v.Float()
		default:
			return typeErr(n, v)
		}
		if n.kind == Float {
			e.buf = appendUint32(e.buf, math.Float32bits(float32(f)))
		} else {
			e.buf = appendUint64(e.buf, math.Float64bits(f))
		}
		return nil
	case String:
		if v.Kind() != reflect.String {
			return typeErr(n, v)
		}
		e.long(int64(v.Len()))
		e.buf = append(e.buf, v.String()...)
		return nil
	case Bytes:
		if r, ok := ratValue(v); ok && n.logical == "decimal" {
			b, err := decimalBytes(r, n.scale, 0)
			if err != nil {
				return err
			}
			e.bytes(b)
			return nil
		}
		if v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Uint8 {
			return typeErr(n, v)
		}
		e.bytes(v.Bytes())
		return nil
	case Enum:
		if v.Kind() != reflect.String {
			return typeErr(n, v)
		}
		i := slices.Index(n.symbols, v.String())
		if i < 0 {
			return fmt.Errorf("avro: unknown enum symbol %q of %s", v.String(), n.full)
		}
		e.long(int64(i))
		return nil
	case Fixed:
		if r, ok := ratValue(v); ok && n.logical == "decimal" {
			b, err := decimalBytes(r, n.scale, n.size)
			if err != nil {
				return err
			}
			e.buf = append(e.buf, b...)
			return nil
		}
		if (v.Kind() != reflect.Array && v.Kind() != reflect.Slice) || v.Type().Elem().Kind() != reflect.Uint8 || v.Len() != n.size {
			return fmt.Errorf("avro: %s is unsupported for Avro fixed %s of %d bytes", v.Type(), n.full, n.size)
		}
		for i := range v.Len() {
			e.buf = append(e.buf, byte(v.Index(i).Uint()))
		}
		return nil
	case Array:
		if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
			return typeErr(n, v)
		}
		return e.blocks(v.Len(), func(i int) error { return e.encode(n.items, v.Index(i), depth+1) })
	case Map:
		if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
			return typeErr(n, v)
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		return e.blocks(len(keys), func(i int) error {
			e.long(int64(keys[i].Len()))
			e.buf = append(e.buf, keys[i].String()...)
			return e.encode(n.values, v.MapIndex(keys[i]), depth+1)
		})
	case Record:
		return e.record(n, v, depth)
	}
	return typeErr(n, v)
}

// integerOf is v as an int or long of schema n: an integer, or a
// time.Time or time.Duration for the logical types that take them.
func integerOf(n *node, v reflect.Value) (int64, error) {
	switch v.Type() {
	case timeType:
		t := v.Interface().(time.Time)
		switch n.logical {
		case "date":
			return t.Unix() / 86400, nil
		case "timestamp-millis", "local-timestamp-millis":
			return t.Unix()*1e3 + int64(t.Nanosecond())/1e6, nil
		case "timestamp-micros", "local-timestamp-micros":
			return t.Unix()*1e6 + int64(t.Nanosecond())/1e3, nil
		}
	case durationType:
		d := time.Duration(v.Int())
		switch n.logical {
		case "time-millis":
			return int64(d / time.Millisecond), nil
		case "time-micros":
			return int64(d / time.Microsecond), nil
		}
		return int64(d), nil
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint, reflect.Uint64, reflect.Uintptr:
		if v.Uint() > math.MaxInt64 {
			return 0, fmt.Errorf("avro: %d overflows Avro %s", v.Uint(), n.kind)
		}
		return int64(v.Uint()), nil
	}
	return 0, typeErr(n, v)
}

// blockLength is the most items of an array or map block, as the official
// client's library writes them.
const blockLength = 100

// blocks writes count items in blocks of blockLength: each a negative
// count and its size in bytes (a plain count when its items take no
// bytes), then a zero count.
func (e *encoder) blocks(count int, item func(i int) error) error {
	for i := 0; i < count; i += blockLength {
		end := min(i+blockLength, count)
		start := len(e.buf)
		for j := i; j < end; j++ {
			if err := item(j); err != nil {
				return err
			}
		}
		size := len(e.buf) - start
		var h encoder
		if size > 0 {
			h.long(-int64(end - i))
			h.long(int64(size))
		} else {
			h.long(int64(end - i))
		}
		e.buf = slices.Insert(e.buf, start, h.buf...)
	}
	e.buf = append(e.buf, 0)
	return nil
}

func appendUint32(b []byte, u uint32) []byte {
	return append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
}

func appendUint64(b []byte, u uint64) []byte {
	return appendUint32(appendUint32(b, uint32(u)), uint32(u>>32))
}

// record writes a struct or a map with string keys field by field; a
// field the value lacks is written with its default.
func (e *encoder) record(n *node, v reflect.Value, depth int) error {
	switch {
	case v.Kind() == reflect.Struct:
		idx := e.s.structFields(v.Type())
		for _, f := range n.fields {
			fv, ok := fieldByPath(v, idx[f.name])
			if !ok {
				if err := e.missing(n, f, depth); err != nil {
					return err
				}
				continue
			}
			if err := e.encode(f.typ, fv, depth+1); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		return nil
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		for _, f := range n.fields {
			fv := v.MapIndex(reflect.ValueOf(f.name).Convert(v.Type().Key()))
			if !fv.IsValid() {
				if err := e.missing(n, f, depth); err != nil {
					return err
				}
				continue
			}
			if err := e.encode(f.typ, fv, depth+1); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		return nil
	}
	return typeErr(n, v)
}

func (e *encoder) missing(n *node, f *field, depth int) error {
	if !f.hasDef {
		return fmt.Errorf("avro: record %s is missing required field %q", n.full, f.name)
	}
	return e.encodeDefault(f.typ, f.def, depth+1)
}

// encodeDefault writes a field default (as validDefault converted it).
func (e *encoder) encodeDefault(n *node, def any, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("avro: default nested deeper than %d", MaxDepth)
	}
	switch n.kind {
	case Union:
		if len(n.types) == 0 {
			break
		}
		e.long(0)
		return e.encodeDefault(n.types[0], def, depth+1)
	case Fixed:
		if d, ok := def.(fixedDefault); ok {
			e.buf = append(e.buf, d.bytes()...)
			return nil
		}
	case Array:
		if arr, ok := def.([]any); ok {
			return e.blocks(len(arr), func(i int) error { return e.encodeDefault(n.items, arr[i], depth+1) })
		}
	case Map:
		if m, ok := def.(map[string]any); ok {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			return e.blocks(len(keys), func(i int) error {
				e.bytes([]byte(keys[i]))
				return e.encodeDefault(n.values, m[keys[i]], depth+1)
			})
		}
	case Record:
		if m, ok := def.(map[string]any); ok {
			for _, f := range n.fields {
				if err := e.encodeDefault(f.typ, m[f.name], depth+1); err != nil {
					return err
				}
			}
			return nil
		}
	default:
		return e.encode(n, reflect.ValueOf(def), depth)
	}
	return fmt.Errorf("avro: default %v is not a value of %s", def, n.kind)
}
