package crypto

import (
	"crypto/ecdh"
	"crypto/elliptic"
	"encoding/asn1"
	"fmt"
)

// EC keys are read here rather than by crypto/x509, which refuses the
// explicit curve parameters Pulsar's docs produce: SubjectPublicKeyInfo
// (RFC 5480), SEC 1 ECPrivateKey (RFC 5915) and PKCS#8 (RFC 5208) holding
// one, with the curve named or explicit.

type algorithmIdentifier struct {
	Algorithm asn1.ObjectIdentifier
	Params    asn1.RawValue `asn1:"optional"`
}

type subjectPublicKeyInfo struct {
	Algorithm algorithmIdentifier
	PublicKey asn1.BitString
}

type sec1PrivateKey struct {
	Version    int
	PrivateKey []byte
	Params     asn1.RawValue  `asn1:"optional,explicit,tag:0"`
	PublicKey  asn1.BitString `asn1:"optional,explicit,tag:1"`
}

// pkcs8PrivateKey is a PrivateKeyInfo; the attributes (and a v2 public
// key) that may follow are not read.
type pkcs8PrivateKey struct {
	Version    int
	Algorithm  algorithmIdentifier
	PrivateKey []byte
}

// params returns the DER of the identifier's parameters, nil for none.
func (a algorithmIdentifier) params() []byte {
	if len(a.Params.FullBytes) == 0 {
		return nil
	}
	return a.Params.FullBytes
}

// parseECPublicKeyInfo parses der as an EC SubjectPublicKeyInfo. ok is
// false when der is not one (another algorithm, or not an SPKI at all),
// for the caller to try other forms. pemParams (may be nil) are the
// EcpkParameters of an "EC PARAMETERS" block, used when the key has none.
func parseECPublicKeyInfo(der, pemParams []byte) (k *ecdh.PublicKey, ok bool, err error) {
	var spki subjectPublicKeyInfo
	if rest, err := asn1.Unmarshal(der, &spki); err != nil || len(rest) > 0 ||
		!spki.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return nil, false, nil
	}
	params := spki.Algorithm.params()
	if params == nil {
		params = pemParams
	}
	if params == nil {
		return nil, true, fmt.Errorf("%w: EC public key without curve parameters", ErrInvalidKey)
	}
	c, err := parseECParameters(params)
	if err != nil {
		return nil, true, err
	}
	k, err = c.point(spki.PublicKey)
	return k, true, err
}

// parseECPKCS8 parses der as a PKCS#8 EC private key; ok is false when der
// is not one.
func parseECPKCS8(der []byte) (k *ecdh.PrivateKey, ok bool, err error) {
	var p pkcs8PrivateKey
	if rest, err := asn1.Unmarshal(der, &p); err != nil || len(rest) > 0 ||
		!p.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return nil, false, nil
	}
	if p.Version != 0 && p.Version != 1 {
		return nil, true, fmt.Errorf("%w: PKCS#8 version %d", ErrInvalidKey, p.Version)
	}
	var outer *ecCurve
	if params := p.Algorithm.params(); params != nil {
		if outer, err = parseECParameters(params); err != nil {
			return nil, true, err
		}
	}
	k, err = parseSEC1(p.PrivateKey, outer, nil)
	return k, true, err
}

// parseSEC1 parses a SEC 1 ECPrivateKey. Its curve is the key's own
// parameters, else outer (a PKCS#8 key's), else pemParams; the key's and
// outer must agree when both are given.
func parseSEC1(der []byte, outer *ecCurve, pemParams []byte) (*ecdh.PrivateKey, error) {
	var s sec1PrivateKey
	if rest, err := asn1.Unmarshal(der, &s); err != nil {
		return nil, fmt.Errorf("%w: EC private key: %w", ErrInvalidKey, err)
	} else if len(rest) > 0 {
		return nil, fmt.Errorf("%w: EC private key: %d trailing bytes", ErrInvalidKey, len(rest))
	}
	if s.Version != 1 {
		return nil, fmt.Errorf("%w: EC private key of version %d", ErrInvalidKey, s.Version)
	}
	c := outer
	if len(s.Params.FullBytes) > 0 { // [0] EXPLICIT: the parameters are its contents
		own, err := parseECParameters(s.Params.Bytes)
		if err != nil {
			return nil, err
		}
		if outer != nil && own != outer {
			return nil, fmt.Errorf("%w: EC private key on %s in a PKCS#8 key on %s", ErrInvalidKey, own.name, outer.name)
		}
		c = own
	} else if c == nil && pemParams != nil {
		var err error
		if c, err = parseECParameters(pemParams); err != nil {
			return nil, err
		}
	}
	if c == nil {
		return nil, fmt.Errorf("%w: EC private key without curve parameters", ErrInvalidKey)
	}
	n := c.scalarLen()
	if len(s.PrivateKey) > n {
		return nil, fmt.Errorf("%w: EC private key of %d bytes on %s", ErrInvalidKey, len(s.PrivateKey), c.name)
	}
	scalar := make([]byte, n)
	copy(scalar[n-len(s.PrivateKey):], s.PrivateKey)
	k, err := c.curve.NewPrivateKey(scalar)
	if err != nil {
		return nil, fmt.Errorf("%w: EC private key: %w", ErrInvalidKey, err)
	}
	if s.PublicKey.BitLength > 0 {
		pub, err := c.point(s.PublicKey)
		if err != nil {
			return nil, err
		}
		if !pub.Equal(k.PublicKey()) {
			return nil, fmt.Errorf("%w: EC private key's public key does not match it", ErrInvalidKey)
		}
	}
	return k, nil
}

// point parses a SEC 1 point on c, uncompressed or compressed.
func (c *ecCurve) point(bits asn1.BitString) (*ecdh.PublicKey, error) {
	b, l := bits.Bytes, c.fieldLen()
	if bits.BitLength != 8*len(b) {
		return nil, fmt.Errorf("%w: EC point of %d bits", ErrInvalidKey, bits.BitLength)
	}
	if len(b) == 1+l && (b[0] == 2 || b[0] == 3) {
		x, y := elliptic.UnmarshalCompressed(c.ell, b)
		if x == nil {
			return nil, fmt.Errorf("%w: compressed EC point not on %s", ErrInvalidKey, c.name)
		}
		u := make([]byte, 1+2*l)
		u[0] = 4
		x.FillBytes(u[1 : 1+l])
		y.FillBytes(u[1+l:])
		b = u
	}
	k, err := c.curve.NewPublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: EC point: %w", ErrInvalidKey, err)
	}
	return k, nil
}
