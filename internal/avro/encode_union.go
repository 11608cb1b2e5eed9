package avro

import (
	"fmt"
	"reflect"
)

// union writes the branch index and the value: nil is the null branch; a
// map[string]any of one entry names its branch; for ["null", T] a nil
// pointer, slice or map is null and anything else a T; any other value
// goes to the first branch its Go type maps to.
func (e *encoder) union(n *node, v reflect.Value, depth int) error {
	for v.IsValid() && v.Kind() == reflect.Interface {
		if v.IsNil() {
			v = reflect.Value{}
			break
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return e.branch(n, "null", v, depth)
	}
	if v.Type() == anyMapType {
		if v.Len() > 1 {
			return fmt.Errorf("avro: cannot encode union map with multiple entries")
		}
		if v.Len() == 0 {
			return e.branch(n, "null", reflect.Value{}, depth)
		}
		iter := v.MapRange()
		iter.Next()
		return e.branch(n, iter.Key().String(), iter.Value(), depth)
	}
	if null, typ, ok := nullable(n); ok {
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if v.IsNil() {
				e.long(int64(null))
				return nil
			}
			e.long(int64(typ))
			return e.encode(n.types[typ], v, depth+1)
		}
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return e.branch(n, "null", reflect.Value{}, depth)
		}
		v = indirect(v)
	}
	for _, name := range goTypeNames(v.Type()) {
		if i := branchIndex(n, name); i >= 0 {
			e.long(int64(i))
			return e.encode(n.types[i], v, depth+1)
		}
	}
	// A value of a complex type goes to the first branch of its kind.
	for i, t := range n.types {
		if complexFits(t, v.Type()) {
			e.long(int64(i))
			return e.encode(t, v, depth+1)
		}
	}
	return fmt.Errorf("avro: unknown union type for %s", v.Type())
}

func (e *encoder) branch(n *node, name string, v reflect.Value, depth int) error {
	i := branchIndex(n, name)
	if i < 0 {
		return fmt.Errorf("avro: unknown union type %s", name)
	}
	e.long(int64(i))
	t := n.types[i]
	if t.kind == Array && !v.IsValid() {
		e.buf = append(e.buf, 0) // nil is the empty array
		return nil
	}
	return e.encode(t, v, depth+1)
}

func branchIndex(n *node, name string) int {
	for i, t := range n.types {
		if t.typeName() == name {
			return i
		}
	}
	return -1
}

// nullable reports whether n is a union of null and one other type, and
// their indexes.
func nullable(n *node) (null, typ int, ok bool) {
	if len(n.types) != 2 {
		return 0, 0, false
	}
	switch {
	case n.types[0].kind == Null:
		return 0, 1, true
	case n.types[1].kind == Null:
		return 1, 0, true
	}
	return 0, 0, false
}

// goTypeNames is the branch names a Go type maps to, preferred first.
func goTypeNames(t reflect.Type) []string {
	switch t {
	case timeType:
		return []string{"int.date", "long.timestamp-millis", "long.timestamp-micros"}
	case durationType:
		return []string{"int.time-millis", "long.time-micros"}
	case bytesType:
		return []string{"bytes"}
	case ratType:
		return []string{"bytes.decimal"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return []string{"boolean"}
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return []string{"int"}
	case reflect.Int:
		return []string{"int", "long"}
	case reflect.Int64:
		return []string{"long"}
	case reflect.Float32:
		return []string{"float"}
	case reflect.Float64:
		return []string{"double"}
	case reflect.String:
		return []string{"string", "string.uuid"}
	}
	return nil
}

func complexFits(n *node, t reflect.Type) bool {
	switch n.kind {
	case Record:
		return t.Kind() == reflect.Struct || t.Kind() == reflect.Map && t.Key().Kind() == reflect.String
	case Map:
		return t.Kind() == reflect.Map && t.Key().Kind() == reflect.String
	case Array:
		return t.Kind() == reflect.Slice || t.Kind() == reflect.Array
	case Fixed:
		return t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8 && t.Len() == n.size
	}
	return false
}
