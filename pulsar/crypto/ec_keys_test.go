package crypto

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pemDER returns the DER of the first block of type typ in a PEM file.
func pemDER(t *testing.T, data []byte, typ string) []byte {
	t.Helper()
	for {
		b, rest := pem.Decode(data)
		require.NotNil(t, b, "no %s block", typ)
		if b.Type == typ {
			return b.Bytes
		}
		data = rest
	}
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// isKeyError reports whether err is one of the typed errors of a bad key.
func isKeyError(err error) bool {
	return errors.Is(err, ErrInvalidKey) || errors.Is(err, ErrUnsupportedKey)
}

// openssl's keys with explicit parameters (which crypto/x509 refuses) are
// read as the named curve they describe, in every file form, and are the
// same key pair as their private keys.
func TestExplicitParametersAreTheNamedCurve(t *testing.T) {
	curves := map[string]ecdh.Curve{"p256": ecdh.P256(), "p384": ecdh.P384(), "p521": ecdh.P521()}
	stems := map[string]string{
		"p256-named": "p256", "p256-explicit": "p256", "p256-compressed": "p256",
		"p384-named": "p384", "p384-explicit": "p384", "p521-named": "p521", "p521-explicit": "p521",
	}
	for stem, curve := range stems {
		t.Run(stem, func(t *testing.T) {
			pubPEM := keyFile(t, stem, ".pub.pem")
			if stem != "p256-named" && stem != "p384-named" && stem != "p521-named" {
				_, err := x509.ParsePKIXPublicKey(pemDER(t, pubPEM, "PUBLIC KEY"))
				require.Error(t, err, "crypto/x509 reads it: the test proves nothing")
			}
			pub, err := parsePublicKey(pubPEM)
			require.NoError(t, err)
			require.Equal(t, curves[curve], pub.(ecPublic).k.Curve())
			for _, form := range privateForms {
				priv, err := parsePrivateKey(keyFile(t, stem, form))
				require.NoError(t, err, form)
				assert.True(t, priv.(ecPrivate).k.PublicKey().Equal(pub.(ecPublic).k), form)
			}
		})
	}
}

// A certificate's key is its subject key, explicit parameters included.
func TestCertificatePublicKey(t *testing.T) {
	pub, err := parsePublicKey(keyFile(t, "p521-explicit", ".pub.pem"))
	require.NoError(t, err)
	cert, err := parsePublicKey(keyFile(t, "p521-explicit", ".cert.pem"))
	require.NoError(t, err)
	assert.True(t, cert.(ecPublic).k.Equal(pub.(ecPublic).k))

	// An RSA certificate (crypto/x509's, with a [0] version) likewise.
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), NotBefore: time.Unix(0, 0), NotAfter: time.Unix(3600, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &rk.PublicKey, rk)
	require.NoError(t, err)
	rc, err := parsePublicKey(pemOf("CERTIFICATE", der))
	require.NoError(t, err)
	assert.True(t, rc.(rsaPublic).k.Equal(&rk.PublicKey))

	_, err = parsePublicKey(pemOf("CERTIFICATE", []byte{0x30, 0x03, 0x30, 0x01, 0x02}))
	require.ErrorIs(t, err, ErrInvalidKey)
}

// secp256k1 (which BouncyCastle accepts) is refused by name in every form,
// named or explicit, also by the producer's Encrypt; P-224 too.
func TestSecp256k1IsRefusedByName(t *testing.T) {
	for _, stem := range []string{"secp256k1-named", "secp256k1-explicit"} {
		for _, form := range []string{".pub.pem", ".priv.pem", ".pkcs8.pem"} {
			var err error
			if form == ".pub.pem" {
				_, err = parsePublicKey(keyFile(t, stem, form))
			} else {
				_, err = parsePrivateKey(keyFile(t, stem, form))
			}
			var uc *UnsupportedCurveError
			require.ErrorAs(t, err, &uc, stem+form)
			assert.Equal(t, "secp256k1", uc.Curve)
			assert.ErrorIs(t, err, ErrUnsupportedKey)
			assert.Contains(t, err.Error(), "secp256k1")
		}
	}
	// P-224, which crypto/x509 reads but crypto/ecdh lacks, likewise.
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(&p224.PublicKey)
	require.NoError(t, err)
	_, err = parsePublicKey(pemOf("PUBLIC KEY", der))
	var uc *UnsupportedCurveError
	require.ErrorAs(t, err, &uc)
	assert.Equal(t, "P-224", uc.Curve)

	kr := &mapReader{pub: map[string][]byte{"k": keyFile(t, "secp256k1-explicit", ".pub.pem")}}
	_, err = newProducerCrypto(t).Encrypt([]string{"k"}, kr, NewMessageMetadataSupplier(nil), []byte("x"))
	require.ErrorAs(t, err, &uc)
	require.ErrorIs(t, err, ErrEncrypt)
}

// explicitP256 returns the SPKI and the explicit domain of the P-256
// test key, for tests to alter.
func explicitP256(t *testing.T) (subjectPublicKeyInfo, specifiedDomain) {
	t.Helper()
	var spki subjectPublicKeyInfo
	_, err := asn1.Unmarshal(pemDER(t, keyFile(t, "p256-explicit", ".pub.pem"), "PUBLIC KEY"), &spki)
	require.NoError(t, err)
	var d specifiedDomain
	_, err = asn1.Unmarshal(spki.Algorithm.Params.FullBytes, &d)
	require.NoError(t, err)
	return spki, d
}

// Explicit parameters are matched on every one of p, a, b, G, n and h:
// one changed is another curve, refused by an UnsupportedCurveError; G may
// be written compressed or hybrid.
func TestExplicitParametersAreMatchedExactly(t *testing.T) {
	add := func(v *big.Int, d int64) *big.Int { return new(big.Int).Add(v, big.NewInt(d)) }
	bump := func(b []byte) []byte { return add(new(big.Int).SetBytes(b), 1).FillBytes(make([]byte, len(b))) }
	cases := map[string]struct {
		alter func(*specifiedDomain)
		want  error // nil: still P-256
	}{
		"as written":            {func(*specifiedDomain) {}, nil},
		"a changed":             {func(d *specifiedDomain) { d.Curve.A = bump(d.Curve.A) }, ErrUnsupportedKey},
		"b changed":             {func(d *specifiedDomain) { d.Curve.B = bump(d.Curve.B) }, ErrUnsupportedKey},
		"Gx changed":            {func(d *specifiedDomain) { d.Base[1] ^= 1 }, ErrUnsupportedKey},
		"Gy changed":            {func(d *specifiedDomain) { d.Base[64] ^= 1 }, ErrUnsupportedKey},
		"n changed":             {func(d *specifiedDomain) { d.Order = add(d.Order, 2) }, ErrUnsupportedKey},
		"cofactor 2":            {func(d *specifiedDomain) { d.Cofactor = big.NewInt(2) }, ErrUnsupportedKey},
		"no cofactor":           {func(d *specifiedDomain) { d.Cofactor = nil }, nil},
		"no seed":               {func(d *specifiedDomain) { d.Curve.Seed = asn1.BitString{} }, nil},
		"G compressed":          {func(d *specifiedDomain) { d.Base = append([]byte{2 | d.Base[64]&1}, d.Base[1:33]...) }, nil},
		"G compressed, wrong y": {func(d *specifiedDomain) { d.Base = append([]byte{3 ^ d.Base[64]&1}, d.Base[1:33]...) }, ErrUnsupportedKey},
		"G hybrid":              {func(d *specifiedDomain) { d.Base[0] = 6 | d.Base[64]&1 }, nil},
		"G hybrid, wrong y":     {func(d *specifiedDomain) { d.Base[0] = 7 ^ d.Base[64]&1 }, ErrUnsupportedKey},
		"G truncated":           {func(d *specifiedDomain) { d.Base = d.Base[:64] }, ErrUnsupportedKey},
		"p changed": {func(d *specifiedDomain) {
			d.Field.Params = asn1.RawValue{FullBytes: mustMarshal(t, add(knownCurves()[0].p, 2))}
		}, ErrUnsupportedKey},
		"binary field": {func(d *specifiedDomain) { d.Field.Type = oidBinaryField }, ErrUnsupportedKey},
		"field type":   {func(d *specifiedDomain) { d.Field.Type = asn1.ObjectIdentifier{1, 2, 3} }, ErrInvalidKey},
		"field prime":  {func(d *specifiedDomain) { d.Field.Params = asn1.RawValue{FullBytes: []byte{4, 1, 0}} }, ErrInvalidKey},
		"version 0":    {func(d *specifiedDomain) { d.Version = 0 }, ErrInvalidKey},
		"version 4":    {func(d *specifiedDomain) { d.Version = 4 }, ErrInvalidKey},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			spki, d := explicitP256(t)
			c.alter(&d)
			spki.Algorithm.Params = asn1.RawValue{FullBytes: mustMarshal(t, d)}
			k, err := parsePublicKey(pemOf("PUBLIC KEY", mustMarshal(t, spki)))
			if c.want == nil {
				require.NoError(t, err)
				require.Equal(t, ecdh.P256(), k.(ecPublic).k.Curve())
				return
			}
			require.ErrorIs(t, err, c.want)
			if c.want == ErrUnsupportedKey {
				var uc *UnsupportedCurveError
				require.ErrorAs(t, err, &uc)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := asn1.Marshal(v)
	require.NoError(t, err)
	return b
}
