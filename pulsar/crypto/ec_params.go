package crypto

import (
	"bytes"
	"crypto/ecdh"
	"crypto/elliptic"
	"encoding/asn1"
	"fmt"
	"math/big"
	"sync"
)

// The curve of an EC key is given by its EcpkParameters (RFC 3279, SEC 1
// §C.2): the OID of a named curve, or explicit domain parameters (a
// SpecifiedECDomain: field prime p, coefficients a and b, base point G,
// order n, cofactor h), as `openssl ecparam -param_enc explicit` writes
// them and Pulsar's docs tell users to make keys. Go's crypto/x509 reads
// only named curves; an explicit domain is matched here to the named curve
// with the same p, a, b, G and n.

// Object identifiers of EC keys.
var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidPrimeField  = asn1.ObjectIdentifier{1, 2, 840, 10045, 1, 1}
	oidBinaryField = asn1.ObjectIdentifier{1, 2, 840, 10045, 1, 2}
)

// ecCurve is a named curve's domain parameters.
type ecCurve struct {
	name               string
	oid                asn1.ObjectIdentifier
	curve              ecdh.Curve     // nil: known, but the standard library lacks it
	ell                elliptic.Curve // for decompressing points; nil with curve
	p, a, b, gx, gy, n *big.Int
}

// fieldLen is the size of a field element (and of each coordinate of an
// uncompressed point) in bytes.
func (c *ecCurve) fieldLen() int { return (c.p.BitLen() + 7) / 8 }

// scalarLen is the size of a private key in bytes.
func (c *ecCurve) scalarLen() int { return (c.n.BitLen() + 7) / 8 }

// knownCurves are the curves keys are matched against, built once and
// never changed: the three of the standard library's crypto/ecdh, and
// P-224 and secp256k1 (which BouncyCastle accepts), recognised to be
// refused by name.
var knownCurves = sync.OnceValue(func() []*ecCurve {
	std := func(name string, oid asn1.ObjectIdentifier, c ecdh.Curve, e elliptic.Curve) *ecCurve {
		p := e.Params()
		return &ecCurve{name: name, oid: oid, curve: c, ell: e, p: p.P, a: new(big.Int).Sub(p.P, big.NewInt(3)),
			b: p.B, gx: p.Gx, gy: p.Gy, n: p.N}
	}
	unsupported := func(c *ecCurve) *ecCurve {
		c.curve, c.ell = nil, nil
		return c
	}
	hex := func(s string) *big.Int {
		v, _ := new(big.Int).SetString(s, 16)
		return v
	}
	return []*ecCurve{
		std("P-256", asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}, ecdh.P256(), elliptic.P256()),
		std("P-384", asn1.ObjectIdentifier{1, 3, 132, 0, 34}, ecdh.P384(), elliptic.P384()),
		std("P-521", asn1.ObjectIdentifier{1, 3, 132, 0, 35}, ecdh.P521(), elliptic.P521()),
		unsupported(std("P-224", asn1.ObjectIdentifier{1, 3, 132, 0, 33}, nil, elliptic.P224())),
		{name: "secp256k1", oid: asn1.ObjectIdentifier{1, 3, 132, 0, 10},
			p:  hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"),
			a:  big.NewInt(0),
			b:  big.NewInt(7),
			gx: hex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
			gy: hex("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),
			n:  hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")},
	}
})

// supported returns c, or an *UnsupportedCurveError when the standard
// library lacks it.
func (c *ecCurve) supported() (*ecCurve, error) {
	if c.curve == nil {
		return nil, &UnsupportedCurveError{Curve: c.name}
	}
	return c, nil
}

// parseECParameters parses DER EcpkParameters: a named curve's OID or a
// SpecifiedECDomain. It returns a supported curve, an
// *UnsupportedCurveError, or an error wrapping ErrInvalidKey.
func parseECParameters(der []byte) (*ecCurve, error) {
	var raw asn1.RawValue
	if rest, err := asn1.Unmarshal(der, &raw); err != nil {
		return nil, fmt.Errorf("%w: EC parameters: %w", ErrInvalidKey, err)
	} else if len(rest) > 0 {
		return nil, fmt.Errorf("%w: EC parameters: %d trailing bytes", ErrInvalidKey, len(rest))
	}
	switch {
	case raw.Class == asn1.ClassUniversal && raw.Tag == asn1.TagOID:
		var oid asn1.ObjectIdentifier
		if _, err := asn1.Unmarshal(der, &oid); err != nil {
			return nil, fmt.Errorf("%w: EC curve OID: %w", ErrInvalidKey, err)
		}
		for _, c := range knownCurves() {
			if c.oid.Equal(oid) {
				return c.supported()
			}
		}
		return nil, &UnsupportedCurveError{Curve: oid.String()}
	case raw.Class == asn1.ClassUniversal && raw.Tag == asn1.TagSequence && raw.IsCompound:
		return matchDomain(der)
	case raw.Class == asn1.ClassUniversal && raw.Tag == asn1.TagNull:
		return nil, &UnsupportedCurveError{Curve: "implicitlyCA (parameters inherited from the issuer)"}
	default:
		return nil, fmt.Errorf("%w: EC parameters of tag %d", ErrInvalidKey, raw.Tag)
	}
}

// specifiedDomain is SEC 1's SpecifiedECDomain (versions 1 to 3; the
// optional hash of versions 2 and 3 may follow and is not read).
type specifiedDomain struct {
	Version int
	Field   struct {
		Type   asn1.ObjectIdentifier
		Params asn1.RawValue
	}
	Curve struct {
		A, B []byte
		Seed asn1.BitString `asn1:"optional"`
	}
	Base     []byte
	Order    *big.Int
	Cofactor *big.Int `asn1:"optional"`
}

// matchDomain returns the known curve that explicit domain parameters
// describe.
func matchDomain(der []byte) (*ecCurve, error) {
	var d specifiedDomain
	if _, err := asn1.Unmarshal(der, &d); err != nil {
		return nil, fmt.Errorf("%w: explicit EC parameters: %w", ErrInvalidKey, err)
	}
	if d.Version < 1 || d.Version > 3 {
		return nil, fmt.Errorf("%w: explicit EC parameters of version %d", ErrInvalidKey, d.Version)
	}
	if d.Field.Type.Equal(oidBinaryField) {
		return nil, &UnsupportedCurveError{Curve: "explicit parameters over a binary field"}
	}
	if !d.Field.Type.Equal(oidPrimeField) {
		return nil, fmt.Errorf("%w: explicit EC parameters of field type %v", ErrInvalidKey, d.Field.Type)
	}
	var p *big.Int
	if _, err := asn1.Unmarshal(d.Field.Params.FullBytes, &p); err != nil {
		return nil, fmt.Errorf("%w: explicit EC parameters: field prime: %w", ErrInvalidKey, err)
	}
	a, b := new(big.Int).SetBytes(d.Curve.A), new(big.Int).SetBytes(d.Curve.B)
	for _, c := range knownCurves() {
		if p.Cmp(c.p) == 0 && a.Cmp(c.a) == 0 && b.Cmp(c.b) == 0 && d.Order.Cmp(c.n) == 0 &&
			(d.Cofactor == nil || d.Cofactor.Cmp(big.NewInt(1)) == 0) && c.isBase(d.Base) {
			return c.supported()
		}
	}
	return nil, &UnsupportedCurveError{
		Curve: fmt.Sprintf("explicit parameters of an unknown curve over a %d-bit prime field", p.BitLen())}
}

// isBase reports whether enc (an uncompressed, compressed or hybrid SEC 1
// point) is the curve's base point.
func (c *ecCurve) isBase(enc []byte) bool {
	l := c.fieldLen()
	x, y := c.gx.FillBytes(make([]byte, l)), c.gy.FillBytes(make([]byte, l))
	odd := byte(c.gy.Bit(0))
	switch {
	case len(enc) == 1+2*l && enc[0] == 4:
	case len(enc) == 1+2*l && (enc[0] == 6 || enc[0] == 7):
		if enc[0]&1 != odd {
			return false
		}
	case len(enc) == 1+l && (enc[0] == 2 || enc[0] == 3):
		return enc[0]&1 == odd && bytes.Equal(enc[1:], x)
	default:
		return false
	}
	return bytes.Equal(enc[1:1+l], x) && bytes.Equal(enc[1+l:], y)
}
