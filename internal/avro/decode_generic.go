package avro

import (
	"fmt"
	"math/big"
	"reflect"
)

// generic reads a value of n as the Go value it is without a target type.
func (d *decoder) generic(n *node, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, malformed("value nested deeper than %d", MaxDepth)
	}
	switch n.kind {
	case Null:
		return nil, nil
	case Boolean:
		var b bool
		err := d.decode(n, reflect.ValueOf(&b).Elem(), depth)
		return b, err
	case Int, Long:
		var i int64
		var err error
		if n.kind == Int {
			i, err = d.int()
		} else {
			i, err = d.long()
		}
		if err != nil {
			return nil, err
		}
		if t, ok := timeOf(n, i); ok {
			return t, nil
		}
		if n.logical == "time-millis" || n.logical == "time-micros" {
			return durationOf(n, i), nil
		}
		if n.kind == Int {
			return int(i), nil
		}
		return i, nil
	case Float:
		var f float32
		err := d.decode(n, reflect.ValueOf(&f).Elem(), depth)
		return f, err
	case Double:
		var f float64
		err := d.decode(n, reflect.ValueOf(&f).Elem(), depth)
		return f, err
	case String, Enum:
		var s string
		err := d.decode(n, reflect.ValueOf(&s).Elem(), depth)
		return s, err
	case Bytes:
		b, err := d.lengthPrefixed()
		if err != nil {
			return nil, err
		}
		if n.logical == "decimal" {
			return ratOf(b, n.scale), nil
		}
		return append([]byte{}, b...), nil
	case Fixed:
		b, err := d.next(int64(n.size))
		if err != nil {
			return nil, err
		}
		if n.logical == "decimal" {
			return ratOf(b, n.scale), nil
		}
		arr := reflect.New(reflect.ArrayOf(n.size, reflect.TypeFor[byte]())).Elem()
		reflect.Copy(arr, reflect.ValueOf(b))
		return arr.Interface(), nil
	case Array:
		out := []any{}
		err := d.blocks(n.items.minSize, reflect.TypeFor[any]().Size(), func() error {
			x, err := d.generic(n.items, depth+1)
			out = append(out, x)
			return err
		})
		return out, err
	case Map:
		out := map[string]any{}
		err := d.blocks(1+n.values.minSize, 0, func() error {
			key, err := d.lengthPrefixed()
			if err != nil {
				return err
			}
			x, err := d.generic(n.values, depth+1)
			out[string(key)] = x
			return err
		})
		return out, err
	case Record:
		out := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			x, err := d.generic(f.typ, depth+1)
			if err != nil {
				return nil, fieldErr(depth, f.name, err)
			}
			out[f.name] = x
		}
		return out, nil
	case Union:
		t, err := d.branch(n)
		if err != nil {
			return nil, err
		}
		if t.kind == Null {
			return nil, nil
		}
		x, err := d.generic(t, depth+1)
		if err != nil {
			return nil, err
		}
		if n.resolved {
			return x, nil
		}
		return map[string]any{t.typeName(): x}, nil
	}
	return nil, fmt.Errorf("avro: cannot decode %s", n.kind)
}

// resolvedUnion reports whether every branch of union n has a Go type of
// its own (primitives and their common logical types), so that a value
// decoded into an interface is the branch's value itself; otherwise it is
// a map[string]any of one entry keyed by the branch's name.
func resolvedUnion(n *node) bool {
	for _, t := range n.types {
		switch {
		case t.logical == "" && t.kind <= String,
			t.kind == Int && (t.logical == "date" || t.logical == "time-millis"),
			t.kind == Long && (t.logical == "timestamp-millis" || t.logical == "timestamp-micros" || t.logical == "time-micros"),
			t.kind == Bytes && t.logical == "decimal", t.kind == String && t.logical == "uuid":
		default:
			return false
		}
	}
	return true
}

// ratOf is a decimal's value: the big-endian two's-complement unscaled
// integer b over 10^scale.
func ratOf(b []byte, scale int) *big.Rat {
	i := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		i.Sub(i, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return new(big.Rat).SetFrac(i, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
}
