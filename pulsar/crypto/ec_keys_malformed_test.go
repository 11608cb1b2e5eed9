package crypto

import (
	"bytes"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// testKeyDERs returns every key of testdata/bc/keys as (PEM type, DER).
func testKeyDERs(t testing.TB) [][2][]byte {
	files, err := filepath.Glob(filepath.Join(bcDir, "keys", "*.pem"))
	require.NoError(t, err)
	var out [][2][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for b, rest := pem.Decode(data); b != nil; b, rest = pem.Decode(rest) {
			out = append(out, [2][]byte{[]byte(b.Type), b.Bytes})
		}
	}
	require.NotEmpty(t, out)
	return out
}

// parseAs parses der as a key of the PEM type typ, public or private by
// the type, and returns the error.
func parseAs(typ string, der []byte) error {
	data := pemOf(typ, der)
	switch typ {
	case "PUBLIC KEY", "CERTIFICATE":
		_, err := parsePublicKey(data)
		return err
	case "EC PARAMETERS":
		_, err := parseECParameters(der)
		return err
	default:
		_, err := parsePrivateKey(data)
		return err
	}
}

// Every truncation of every test key, and every single-byte change of its
// DER header bytes, is a typed error (never a panic, never accepted as
// another key).
func TestTruncatedECKeysAreTypedErrors(t *testing.T) {
	for _, k := range testKeyDERs(t) {
		typ, der := string(k[0]), k[1]
		require.NoError(t, parseAsOrUnsupported(typ, der), typ)
		for n := range len(der) {
			err := parseAs(typ, der[:n])
			require.Error(t, err, "%s truncated to %d", typ, n)
			require.True(t, isKeyError(err), "%s truncated to %d: %v", typ, n, err)
		}
		for i := range min(len(der), 40) {
			bad := bytes.Clone(der)
			bad[i] ^= 0x80
			if err := parseAs(typ, bad); err != nil {
				require.True(t, isKeyError(err), "%s byte %d: %v", typ, i, err)
			}
		}
	}
}

// parseAsOrUnsupported is parseAs that lets keys of unsupported curves
// (secp256k1) through.
func parseAsOrUnsupported(typ string, der []byte) error {
	if err := parseAs(typ, der); err != nil && !isUnsupportedCurve(err) {
		return err
	}
	return nil
}

func isUnsupportedCurve(err error) bool {
	var uc *UnsupportedCurveError
	return errors.As(err, &uc)
}

// sec1 marshals a SEC 1 key of the P-256 test key with alter applied.
func sec1(t *testing.T, alter func(*sec1PrivateKey)) []byte {
	t.Helper()
	var s sec1PrivateKey
	_, err := asn1.Unmarshal(pemDER(t, keyFile(t, "p256-explicit", ".priv.pem"), "EC PRIVATE KEY"), &s)
	require.NoError(t, err)
	alter(&s)
	return mustMarshal(t, s)
}

// Keys that are well-formed DER but wrong are refused with ErrInvalidKey
// (or ErrUnsupportedKey for a curve we lack).
func TestMalformedECKeysAreTypedErrors(t *testing.T) {
	p256 := pemDER(t, keyFile(t, "p256-named", ".priv.pem"), "EC PARAMETERS")
	p384 := pemDER(t, keyFile(t, "p384-named", ".priv.pem"), "EC PARAMETERS")
	n := knownCurves()[0].n
	otherPub := pemDER(t, keyFile(t, "p256-named", ".priv.pem"), "EC PRIVATE KEY")
	var other sec1PrivateKey
	_, err := asn1.Unmarshal(otherPub, &other)
	require.NoError(t, err)
	spki := func(params []byte, point []byte) []byte {
		s := subjectPublicKeyInfo{Algorithm: algorithmIdentifier{Algorithm: oidECPublicKey},
			PublicKey: asn1.BitString{Bytes: point, BitLength: 8 * len(point)}}
		if params != nil {
			s.Algorithm.Params = asn1.RawValue{FullBytes: params}
		}
		return mustMarshal(t, s)
	}
	goodPoint := other.PublicKey.Bytes
	notOnCurve := append([]byte{2}, bytes.Repeat([]byte{0xff}, 32)...) // x >= p
	cases := map[string]struct {
		typ  string
		der  []byte
		want error
	}{
		"scalar too long": {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) { s.PrivateKey = append([]byte{1}, s.PrivateKey...) }), ErrInvalidKey},
		"scalar zero":     {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) { s.PrivateKey = make([]byte, 32); s.PublicKey = asn1.BitString{} }), ErrInvalidKey},
		"scalar n":        {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) { s.PrivateKey = n.Bytes(); s.PublicKey = asn1.BitString{} }), ErrInvalidKey},
		"other public":    {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) { s.PublicKey = other.PublicKey }), ErrInvalidKey},
		"version 2":       {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) { s.Version = 2 }), ErrInvalidKey},
		"no curve":        {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) { s.Params = asn1.RawValue{} }), ErrInvalidKey},
		"params not EcpkParameters": {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) {
			s.Params = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: []byte{2, 1, 1}}
		}), ErrInvalidKey},
		"implicitlyCA": {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) {
			s.Params = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: []byte{5, 0}}
		}), ErrUnsupportedKey},
		"params trailing": {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) {
			s.Params = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: append(bytes.Clone(p256), 5, 0)}
		}), ErrInvalidKey},
		"unknown curve OID": {"EC PRIVATE KEY", sec1(t, func(s *sec1PrivateKey) {
			s.Params = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true,
				Bytes: mustMarshal(t, asn1.ObjectIdentifier{1, 3, 36, 3, 3, 2, 8, 1, 1, 7})}
		}), ErrUnsupportedKey},
		"PKCS#8 curves disagree": {"PRIVATE KEY", mustMarshal(t, pkcs8PrivateKey{
			Algorithm:  algorithmIdentifier{Algorithm: oidECPublicKey, Params: asn1.RawValue{FullBytes: p384}},
			PrivateKey: otherPub,
		}), ErrInvalidKey},
		"PKCS#8 version 5": {"PRIVATE KEY", mustMarshal(t, pkcs8PrivateKey{Version: 5,
			Algorithm: algorithmIdentifier{Algorithm: oidECPublicKey, Params: asn1.RawValue{FullBytes: p256}}, PrivateKey: otherPub,
		}), ErrInvalidKey},
		"PKCS#8 bad inner key": {"PRIVATE KEY", mustMarshal(t, pkcs8PrivateKey{
			Algorithm: algorithmIdentifier{Algorithm: oidECPublicKey, Params: asn1.RawValue{FullBytes: p256}}, PrivateKey: []byte{1, 2, 3},
		}), ErrInvalidKey},
		"SPKI without params":   {"PUBLIC KEY", spki(nil, goodPoint), ErrInvalidKey},
		"SPKI point truncated":  {"PUBLIC KEY", spki(p256, goodPoint[:64]), ErrInvalidKey},
		"SPKI point hybrid":     {"PUBLIC KEY", spki(p256, append([]byte{6}, goodPoint[1:]...)), ErrInvalidKey},
		"SPKI point infinity":   {"PUBLIC KEY", spki(p256, []byte{0}), ErrInvalidKey},
		"SPKI not on curve":     {"PUBLIC KEY", spki(p256, notOnCurve), ErrInvalidKey},
		"SPKI point of P-384":   {"PUBLIC KEY", spki(p384, goodPoint), ErrInvalidKey},
		"SPKI huge field prime": {"PUBLIC KEY", spki(hugePrimeDomain(t), goodPoint), ErrUnsupportedKey},
		"SPKI unused bits": {"PUBLIC KEY", mustMarshal(t, subjectPublicKeyInfo{
			Algorithm: algorithmIdentifier{Algorithm: oidECPublicKey, Params: asn1.RawValue{FullBytes: p256}},
			PublicKey: asn1.BitString{Bytes: goodPoint, BitLength: 8*len(goodPoint) - 3},
		}), ErrInvalidKey},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, parseAs(c.typ, c.der), c.want)
		})
	}

	// An "EC PARAMETERS" block gives the curve of a key without one, and is
	// ignored by a key with its own.
	noCurve := sec1(t, func(s *sec1PrivateKey) { s.Params = asn1.RawValue{} })
	_, err = parsePrivateKey(append(pemOf("EC PARAMETERS", p256), pemOf("EC PRIVATE KEY", noCurve)...))
	require.NoError(t, err)
	_, err = parsePrivateKey(append(pemOf("EC PARAMETERS", p384), pemOf("EC PRIVATE KEY", noCurve)...))
	require.ErrorIs(t, err, ErrInvalidKey)
	_, err = parsePrivateKey(append(pemOf("EC PARAMETERS", []byte{1, 2}), pemOf("EC PRIVATE KEY", noCurve)...))
	require.ErrorIs(t, err, ErrInvalidKey)
	_, err = parsePrivateKey(append(pemOf("EC PARAMETERS", p384), keyFile(t, "p256-explicit", ".priv.pem")...))
	require.NoError(t, err)

	// A key larger than any PEM key is refused before it is decoded.
	_, err = parsePublicKey(append(keyFile(t, "p256-named", ".pub.pem"), make([]byte, maxKeyFile)...))
	require.ErrorIs(t, err, ErrInvalidKey)
}

// hugePrimeDomain is the P-256 domain with a 64 Kib field prime: refused
// as unknown, with no work sized by the prime.
func hugePrimeDomain(t *testing.T) []byte {
	_, d := explicitP256(t)
	p := new(big.Int).Lsh(big.NewInt(1), 1<<16)
	d.Field.Params = asn1.RawValue{FullBytes: mustMarshal(t, p)}
	return mustMarshal(t, d)
}

// FuzzECKeys: any bytes, as any PEM key type, parse or fail with a typed
// error; never a panic.
func FuzzECKeys(f *testing.F) {
	types := []string{"PUBLIC KEY", "CERTIFICATE", "EC PRIVATE KEY", "PRIVATE KEY", "EC PARAMETERS"}
	for _, k := range testKeyDERs(f) {
		for i, typ := range types {
			if typ == string(k[0]) {
				f.Add(uint8(i), k[1])
			}
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, der []byte) {
		if err := parseAs(types[int(kind)%len(types)], der); err != nil && !isKeyError(err) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}
