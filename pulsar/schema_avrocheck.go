package pulsar

import (
	"errors"
	"fmt"

	"github.com/hamba/avro/v2"
)

// Limits of checkAvro.
const (
	// avroMaxDepth bounds the nesting of records, arrays, maps and unions
	// in a value: deeper data is refused before the decoder recurses.
	avroMaxDepth = 1000
	// avroMaxEmptyItems bounds the items of one array or map whose items
	// take no bytes (nulls, empty records), which the payload's size cannot
	// bound.
	avroMaxEmptyItems = 1 << 20
)

var errAvroShort = errors.New("avro: payload ends inside a value")

// checkAvro walks one value of schema s at the start of data without
// building it and returns the bytes it takes. It refuses what the decoder
// would otherwise trust: lengths and item counts larger than the bytes
// left, unknown union branches and enum symbols, varints too long, bytes
// other than 0 and 1 for booleans, nesting deeper than avroMaxDepth. After
// it passes, decoding allocates at most in proportion to len(data).
func checkAvro(s avro.Schema, data []byte) (int, error) {
	c := avroChecker{data: data, min: map[avro.Schema]int{}}
	if err := c.value(s, 0); err != nil {
		return 0, err
	}
	return c.off, nil
}

type avroChecker struct {
	data []byte
	off  int
	min  map[avro.Schema]int // memo of minSize
}

func (c *avroChecker) left() int { return len(c.data) - c.off }

// varint reads a zig-zag varint of at most maxBytes bytes.
func (c *avroChecker) varint(maxBytes int) (int64, error) {
	var v uint64
	for i := 0; i < maxBytes; i++ {
		if c.off >= len(c.data) {
			return 0, errAvroShort
		}
		b := c.data[c.off]
		c.off++
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return int64(v>>1) ^ -int64(v&1), nil
		}
	}
	return 0, errors.New("avro: varint too long")
}

func (c *avroChecker) skip(n int64) error {
	if n < 0 || n > int64(c.left()) {
		return fmt.Errorf("avro: length %d with %d bytes left", n, c.left())
	}
	c.off += int(n)
	return nil
}

func (c *avroChecker) value(s avro.Schema, depth int) error {
	if depth > avroMaxDepth {
		return fmt.Errorf("avro: value nested deeper than %d", avroMaxDepth)
	}
	switch x := s.(type) {
	case *avro.RefSchema:
		return c.value(x.Schema(), depth)
	case *avro.RecordSchema:
		for _, f := range x.Fields() {
			if err := c.value(f.Type(), depth+1); err != nil {
				return fmt.Errorf("field %s: %w", f.Name(), err)
			}
		}
		return nil
	case *avro.EnumSchema:
		i, err := c.varint(5)
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(x.Symbols())) {
			return fmt.Errorf("avro: enum %s has no symbol %d", x.FullName(), i)
		}
		return nil
	case *avro.UnionSchema:
		i, err := c.varint(10)
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(x.Types())) {
			return fmt.Errorf("avro: union has no branch %d", i)
		}
		return c.value(x.Types()[i], depth+1)
	case *avro.FixedSchema:
		return c.skip(int64(x.Size()))
	case *avro.ArraySchema:
		return c.blocks(depth, func() error { return c.value(x.Items(), depth+1) }, c.minSize(x.Items()))
	case *avro.MapSchema:
		return c.blocks(depth, func() error {
			n, err := c.varint(10)
			if err != nil {
				return err
			}
			if err := c.skip(n); err != nil {
				return err
			}
			return c.value(x.Values(), depth+1)
		}, 1+c.minSize(x.Values()))
	}
	switch s.Type() {
	case avro.Null:
		return nil
	case avro.Boolean:
		if c.off >= len(c.data) {
			return errAvroShort
		}
		if b := c.data[c.off]; b > 1 {
			return fmt.Errorf("avro: boolean byte %d", b)
		}
		c.off++
		return nil
	case avro.Int:
		_, err := c.varint(5)
		return err
	case avro.Long:
		_, err := c.varint(10)
		return err
	case avro.Float:
		return c.skip(4)
	case avro.Double:
		return c.skip(8)
	case avro.Bytes, avro.String:
		n, err := c.varint(10)
		if err != nil {
			return err
		}
		return c.skip(n)
	}
	return fmt.Errorf("avro: cannot check schema type %s", s.Type())
}

// blocks walks the blocks of an array or map: a count, (for a negative
// count) a byte size, the items; a zero count ends them. Counts are
// checked against the bytes left (items of itemMin bytes at least) before
// any item is read.
func (c *avroChecker) blocks(depth int, item func() error, itemMin int) error {
	total := int64(0)
	for {
		n, err := c.varint(10)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n < 0 {
			if n == -n { // math.MinInt64
				return errors.New("avro: block count overflows")
			}
			n = -n
			size, err := c.varint(10)
			if err != nil {
				return err
			}
			if size < 0 || size > int64(c.left()) {
				return fmt.Errorf("avro: block of %d bytes with %d bytes left", size, c.left())
			}
		}
		total += n
		switch {
		case itemMin > 0 && n > int64(c.left()/itemMin):
			return fmt.Errorf("avro: %d items of at least %d bytes with %d bytes left", n, itemMin, c.left())
		case itemMin == 0 && total > avroMaxEmptyItems:
			return fmt.Errorf("avro: more than %d items without content", avroMaxEmptyItems)
		}
		for range n {
			if err := item(); err != nil {
				return err
			}
		}
	}
}

// minSize is the fewest bytes a value of s takes.
func (c *avroChecker) minSize(s avro.Schema) int {
	if n, ok := c.min[s]; ok {
		return n
	}
	c.min[s] = 0 // a record that contains itself: counted once
	n := 0
	switch x := s.(type) {
	case *avro.RefSchema:
		n = c.minSize(x.Schema())
	case *avro.RecordSchema:
		for _, f := range x.Fields() {
			n += c.minSize(f.Type())
			if n > len(c.data) {
				break
			}
		}
	case *avro.FixedSchema:
		n = x.Size()
	default:
		switch s.Type() {
		case avro.Null:
			n = 0
		case avro.Float:
			n = 4
		case avro.Double:
			n = 8
		default: // varints, lengths, union and enum indexes, block counts
			n = 1
		}
	}
	c.min[s] = n
	return n
}
