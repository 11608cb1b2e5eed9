package avro

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"
)

// Limits of decoding.
const (
	// MaxDepth bounds the nesting of records, arrays, maps and unions in a
	// value (and in a default): deeper data is refused before the decoder
	// recurses into it.
	MaxDepth = 1000
	// MaxEmptyItems bounds the items of one array or map whose items take
	// no bytes (nulls, empty records), which the payload's size cannot
	// bound.
	MaxEmptyItems = 1 << 20
	// MaxEmptyItemsMemory bounds the memory of the Go values that the
	// items of one such array or map decode into.
	MaxEmptyItemsMemory = 16 << 20
)

// ErrShort is the error (wrapped) of a payload that ends inside a value.
var ErrShort = errors.New("avro: payload ends inside a value")

// ErrMalformed is the error (wrapped) of a payload that is not a value of
// the schema: a length, count or index out of range, a varint too long.
var ErrMalformed = errors.New("avro: malformed payload")

// Unmarshal decodes the value of the schema at the start of data into v,
// a non-nil pointer; bytes after the value are ignored. Struct fields the
// schema does not have are left as they are, schema fields the struct does
// not have are skipped.
func (s *Schema) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("avro: Unmarshal needs a non-nil pointer, not %T", v)
	}
	d := &decoder{s: s, data: data}
	return d.decode(s.root, rv.Elem(), 0)
}

// Validate checks that data starts with a value of the schema, building
// nothing, and returns the bytes it takes.
func (s *Schema) Validate(data []byte) (int, error) {
	d := &decoder{s: s, data: data}
	if err := d.decode(s.root, reflect.Value{}, 0); err != nil {
		return 0, err
	}
	return d.off, nil
}

type decoder struct {
	s    *Schema
	data []byte
	off  int
}

func (d *decoder) left() int { return len(d.data) - d.off }

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// varint reads a zig-zag varint of at most maxBytes bytes.
func (d *decoder) varint(maxBytes int) (int64, error) {
	var u uint64
	for i := range maxBytes {
		if d.off >= len(d.data) {
			return 0, ErrShort
		}
		b := d.data[d.off]
		d.off++
		u |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, malformed("varint longer than %d bytes", maxBytes)
}

func (d *decoder) int() (int64, error) {
	i, err := d.varint(5)
	if err == nil && (i < math.MinInt32 || i > math.MaxInt32) {
		return 0, malformed("int %d out of range", i)
	}
	return i, err
}

func (d *decoder) long() (int64, error) { return d.varint(10) }

// next returns the next n bytes (not copied).
func (d *decoder) next(n int64) ([]byte, error) {
	if n < 0 || n > int64(d.left()) {
		if n < 0 {
			return nil, malformed("negative length %d", n)
		}
		return nil, fmt.Errorf("%w: length %d with %d bytes left", ErrShort, n, d.left())
	}
	b := d.data[d.off : d.off+int(n)]
	d.off += int(n)
	return b, nil
}

func (d *decoder) lengthPrefixed() ([]byte, error) {
	n, err := d.long()
	if err != nil {
		return nil, err
	}
	return d.next(n)
}

func targetErr(n *node, v reflect.Value) error {
	return fmt.Errorf("avro: %s is unsupported for Avro %s", v.Type(), n.kind)
}

// decode reads a value of n into v; an invalid v skips it (validates).
func (d *decoder) decode(n *node, v reflect.Value, depth int) error {
	if depth > MaxDepth {
		return malformed("value nested deeper than %d", MaxDepth)
	}
	if v.IsValid() && v.Kind() == reflect.Interface && v.NumMethod() == 0 {
		if e := v.Elem(); e.IsValid() && e.Kind() == reflect.Pointer && !e.IsNil() && n.kind != Union {
			return d.decode(n, e.Elem(), depth)
		}
		x, err := d.generic(n, depth)
		if err != nil {
			return err
		}
		if x == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(x))
		}
		return nil
	}
	if n.kind == Union {
		return d.union(n, v, depth)
	}
	for v.IsValid() && v.Kind() == reflect.Pointer && n.kind != Null {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch n.kind {
	case Null:
		return nil
	case Boolean:
		b, err := d.next(1)
		if err != nil {
			return err
		}
		if b[0] > 1 {
			return malformed("boolean byte %d", b[0])
		}
		if !v.IsValid() {
			return nil
		}
		if v.Kind() != reflect.Bool {
			return targetErr(n, v)
		}
		v.SetBool(b[0] == 1)
		return nil
	case Int, Long:
		var i int64
		var err error
		if n.kind == Int {
			i, err = d.int()
		} else {
			i, err = d.long()
		}
		if err != nil || !v.IsValid() {
			return err
		}
		return setInteger(n, v, i)
	case Float:
		b, err := d.next(4)
		if err != nil || !v.IsValid() {
			return err
		}
		f := math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
		if v.Kind() != reflect.Float32 && v.Kind() != reflect.Float64 {
			return targetErr(n, v)
		}
		v.SetFloat(float64(f))
		return nil
	case Double:
		b, err := d.next(8)
		if err != nil || !v.IsValid() {
			return err
		}
		f := math.Float64frombits(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
		switch v.Kind() {
		case reflect.Float64:
			v.SetFloat(f)
		case reflect.Float32:
			if f32 := float32(f); !math.IsInf(f, 0) && math.IsInf(float64(f32), 0) {
				return fmt.Errorf("avro: double %v overflows %s", f, v.Type())
			}
			v.SetFloat(f)
		default:
			return targetErr(n, v)
		}
		return nil
	case String, Bytes:
		b, err := d.lengthPrefixed()
		if err != nil || !v.IsValid() || setRat(n, v, b) {
			return err
		}
		switch {
		case v.Kind() == reflect.String:
			v.SetString(string(b))
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
			v.SetBytes(append([]byte{}, b...))
		default:
			return targetErr(n, v)
		}
		return nil
	case Enum:
		i, err := d.int()
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(n.symbols)) {
			return malformed("enum %s has no symbol %d", n.full, i)
		}
		if !v.IsValid() {
			return nil
		}
		if v.Kind() != reflect.String {
			return targetErr(n, v)
		}
		v.SetString(n.symbols[i])
		return nil
	case Fixed:
		b, err := d.next(int64(n.size))
		if err != nil || !v.IsValid() || setRat(n, v, b) {
			return err
		}
		switch {
		case v.Kind() == reflect.Array && v.Type().Elem().Kind() == reflect.Uint8 && v.Len() == n.size:
			reflect.Copy(v, reflect.ValueOf(b))
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
			v.SetBytes(append([]byte{}, b...))
		default:
			return targetErr(n, v)
		}
		return nil
	case Array:
		if v.IsValid() && v.Kind() != reflect.Slice {
			return targetErr(n, v)
		}
		if v.IsValid() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		}
		return d.blocks(n.items.minSize, elemSize(v), func() error {
			if !v.IsValid() {
				return d.decode(n.items, reflect.Value{}, depth+1)
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(n.items, elem, depth+1); err != nil {
				return err
			}
			v.Set(reflect.Append(v, elem))
			return nil
		})
	case Map:
		if v.IsValid() && (v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String) {
			return targetErr(n, v)
		}
		if v.IsValid() && v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		return d.blocks(1+n.values.minSize, 0, func() error {
			key, err := d.lengthPrefixed()
			if err != nil {
				return err
			}
			if !v.IsValid() {
				return d.decode(n.values, reflect.Value{}, depth+1)
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(n.values, elem, depth+1); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(string(key)).Convert(v.Type().Key()), elem)
			return nil
		})
	case Record:
		return d.record(n, v, depth)
	}
	return fmt.Errorf("avro: cannot decode %s", n.kind)
}

// elemSize is the size of an element of slice v (0 when skipping).
func elemSize(v reflect.Value) uintptr {
	if !v.IsValid() {
		return 0
	}
	return v.Type().Elem().Size()
}

// setInteger stores an int or long into an integer, time.Time or
// time.Duration target.
func setInteger(n *node, v reflect.Value, i int64) error {
	switch v.Type() {
	case timeType:
		if t, ok := timeOf(n, i); ok {
			v.Set(reflect.ValueOf(t))
			return nil
		}
		return targetErr(n, v)
	case durationType:
		v.SetInt(int64(durationOf(n, i)))
		return nil
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.OverflowInt(i) {
			return fmt.Errorf("avro: %d overflows %s", i, v.Type())
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if i < 0 || v.OverflowUint(uint64(i)) {
			return fmt.Errorf("avro: %d overflows %s", i, v.Type())
		}
		v.SetUint(uint64(i))
	default:
		return targetErr(n, v)
	}
	return nil
}

// timeOf is the time of a date or timestamp value, in UTC.
func timeOf(n *node, i int64) (time.Time, bool) {
	switch n.logical {
	case "date":
		return time.Unix(i*86400, 0).UTC(), true
	case "timestamp-millis", "local-timestamp-millis":
		return time.Unix(i/1e3, (i%1e3)*1e6).UTC(), true
	case "timestamp-micros", "local-timestamp-micros":
		return time.Unix(i/1e6, (i%1e6)*1e3).UTC(), true
	}
	return time.Time{}, false
}

func durationOf(n *node, i int64) time.Duration {
	switch n.logical {
	case "time-millis":
		return time.Duration(i) * time.Millisecond
	case "time-micros":
		return time.Duration(i) * time.Microsecond
	}
	return time.Duration(i)
}

// blocks reads the blocks of an array or map: a count, (for a negative
// count) a byte size, the items; a zero count ends them. A count is checked
// against the bytes left (items of itemMin bytes at least) before any of
// its items is read.
func (d *decoder) blocks(itemMin int, itemMem uintptr, item func() error) error {
	total := int64(0)
	for {
		n, err := d.long()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n < 0 {
			if n == math.MinInt64 {
				return malformed("block count overflows")
			}
			n = -n
			size, err := d.long()
			if err != nil {
				return err
			}
			if size < 0 || size > int64(d.left()) {
				return malformed("block of %d bytes with %d bytes left", size, d.left())
			}
		}
		total += n
		switch {
		case itemMin > 0 && n > int64(d.left()/itemMin):
			return malformed("%d items of at least %d bytes with %d bytes left", n, itemMin, d.left())
		case itemMin == 0 && total > MaxEmptyItems:
			return malformed("more than %d items without content", MaxEmptyItems)
		case itemMin == 0 && uint64(total)*uint64(itemMem) > MaxEmptyItemsMemory:
			return malformed("%d items without content would take %d bytes", total, uint64(total)*uint64(itemMem))
		}
		for range n {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

func (d *decoder) record(n *node, v reflect.Value, depth int) error {
	switch {
	case !v.IsValid():
		for _, f := range n.fields {
			if err := d.decode(f.typ, reflect.Value{}, depth+1); err != nil {
				return fieldErr(depth, f.name, err)
			}
		}
		return nil
	case v.Kind() == reflect.Struct:
		idx := d.s.structFields(v.Type())
		for _, f := range n.fields {
			fv, ok := fieldForSet(v, idx[f.name])
			if !ok {
				fv = reflect.Value{} // not in the struct, or not settable: skipped
			}
			if err := d.decode(f.typ, fv, depth+1); err != nil {
				return fieldErr(depth, f.name, err)
			}
		}
		return nil
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for _, f := range n.fields {
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(f.typ, elem, depth+1); err != nil {
				return fieldErr(depth, f.name, err)
			}
			v.SetMapIndex(reflect.ValueOf(f.name).Convert(v.Type().Key()), elem)
		}
		return nil
	}
	return targetErr(n, v)
}

// fieldErr names the field of an error, for the outer levels only (a
// deep value's error would otherwise grow by a name per level).
func fieldErr(depth int, name string, err error) error {
	if depth > 8 {
		return err
	}
	return fmt.Errorf("field %s: %w", name, err)
}

func (d *decoder) branch(n *node) (*node, error) {
	i, err := d.long()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(n.types)) {
		return nil, malformed("union has no branch %d", i)
	}
	return n.types[i], nil
}

// union reads a branch index and the value: into a map[string]any as an
// entry keyed by the branch's name (nothing for null), into a pointer,
// slice or map as nil for null, else into the target itself (its zero
// value for null).
func (d *decoder) union(n *node, v reflect.Value, depth int) error {
	t, err := d.branch(n)
	if err != nil {
		return err
	}
	if !v.IsValid() {
		return d.decode(t, v, depth+1)
	}
	if v.Type() == anyMapType {
		if t.kind == Null {
			return nil
		}
		x, err := d.generic(t, depth+1)
		if err != nil {
			return err
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(anyMapType))
		}
		v.SetMapIndex(reflect.ValueOf(t.typeName()), reflect.ValueOf(&x).Elem())
		return nil
	}
	if t.kind == Null {
		v.SetZero()
		return nil
	}
	return d.decode(t, v, depth+1)
}
