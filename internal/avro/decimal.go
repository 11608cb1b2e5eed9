package avro

import (
	"fmt"
	"math/big"
	"reflect"
)

// Decimals: a *big.Rat (or big.Rat) for the decimal logical type of bytes
// and fixed, stored as the big-endian two's-complement integer
// value×10^scale (rounded down), as the official client's library does.

var ratType = reflect.TypeFor[big.Rat]()

// decimalBytes is the unscaled integer of r for scale: as few bytes as
// hold it for bytes (size 0), exactly size bytes for a fixed.
func decimalBytes(r *big.Rat, scale, size int) ([]byte, error) {
	i := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	i.Div(i, r.Denom())
	var b []byte
	switch i.Sign() {
	case 0:
		b = []byte{0}
		if size > 0 {
			b = make([]byte, size)
		}
	case 1:
		b = i.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		if size > 0 && len(b) < size {
			b = append(make([]byte, size-len(b)), b...)
		}
	default:
		bits := uint(i.BitLen()/8+1) * 8
		if size > 0 {
			bits = uint(size) * 8
		}
		i.Add(i, new(big.Int).Lsh(big.NewInt(1), bits))
		if i.Sign() <= 0 || i.Bit(int(bits)-1) == 0 { // below -2^(bits-1): no two's complement of size bytes
			return nil, fmt.Errorf("avro: decimal %s does not fit %d bytes", r.FloatString(scale), size)
		}
		b = i.Bytes()
	}
	if size > 0 && len(b) != size {
		return nil, fmt.Errorf("avro: decimal %s does not fit %d bytes", r.FloatString(scale), size)
	}
	return b, nil
}

// ratValue is v as a *big.Rat when it is a big.Rat.
func ratValue(v reflect.Value) (*big.Rat, bool) {
	if v.Type() != ratType {
		return nil, false
	}
	if v.CanAddr() {
		return v.Addr().Interface().(*big.Rat), true
	}
	p := reflect.New(ratType)
	p.Elem().Set(v)
	return p.Interface().(*big.Rat), true
}

// setRat stores a decimal into a big.Rat target; ok is false for any other.
func setRat(n *node, v reflect.Value, b []byte) bool {
	if n.logical != "decimal" || v.Type() != ratType {
		return false
	}
	v.Addr().Interface().(*big.Rat).Set(ratOf(b, n.scale))
	return true
}
