package crypto

import (
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // BouncyCastle's default ECIES uses SHA-1
	"crypto/subtle"
	"encoding/binary"
	"fmt"
)

// ECIES as BouncyCastle's Cipher "ECIES" does it with the parameters the
// Java client passes for EC keys (IESParameterSpec(null, null, 128): no
// derivation or encoding vector, a 128-bit MAC key, no point compression;
// BouncyCastle's defaults too). Checked against BouncyCastle 1.72's own
// ciphertexts both ways (testdata/bc). An ephemeral key pair on the
// recipient's curve; Z, the x coordinate of the ECDH shared point; K =
// KDF2-SHA-1(V || Z) for V the ephemeral public key, uncompressed; the
// first 16 bytes of K are the MAC key, the next len(M) the XOR stream. The
// output is V || M xor stream || HMAC-SHA-1(mac key, C || 8 zero bytes).

const (
	eciesMacKey = 16 // bytes: IESParameterSpec's default 128-bit MAC key
	eciesTag    = sha1.Size
)

func eciesSeal(pub *ecdh.PublicKey, msg []byte) ([]byte, error) {
	eph, err := pub.Curve().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	z, err := eph.ECDH(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEncrypt, err)
	}
	v := eph.PublicKey().Bytes()
	out := make([]byte, 0, len(v)+len(msg)+eciesTag)
	out = append(out, v...)
	macKey, stream := eciesKeys(v, z, len(msg))
	for i, b := range msg {
		out = append(out, b^stream[i])
	}
	return append(out, eciesMAC(macKey, out[len(v):])...), nil
}

func eciesOpen(priv *ecdh.PrivateKey, wrapped []byte) ([]byte, error) {
	if len(wrapped) > maxWrappedKey {
		return nil, fmt.Errorf("%w: wrapped key of %d bytes", ErrDataKey, len(wrapped))
	}
	pointLen := len(priv.PublicKey().Bytes()) // uncompressed: 1 + 2 * field size
	if len(wrapped) < pointLen+eciesTag {
		return nil, fmt.Errorf("%w: ECIES ciphertext of %d bytes is truncated", ErrDataKey, len(wrapped))
	}
	v := wrapped[:pointLen]
	c := wrapped[pointLen : len(wrapped)-eciesTag]
	tag := wrapped[len(wrapped)-eciesTag:]
	eph, err := priv.Curve().NewPublicKey(v)
	if err != nil {
		return nil, fmt.Errorf("%w: ephemeral key: %w", ErrDataKey, err)
	}
	z, err := priv.ECDH(eph)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataKey, err)
	}
	macKey, stream := eciesKeys(v, z, len(c))
	if subtle.ConstantTimeCompare(eciesMAC(macKey, c), tag) != 1 {
		return nil, fmt.Errorf("%w: ECIES tag mismatch", ErrDataKey)
	}
	out := make([]byte, len(c))
	for i := range c {
		out[i] = c[i] ^ stream[i]
	}
	return out, nil
}

// eciesKeys derives the MAC key and an XOR stream of n bytes.
func eciesKeys(v, z []byte, n int) (macKey, stream []byte) {
	k := kdf2SHA1(append(append(make([]byte, 0, len(v)+len(z)), v...), z...), eciesMacKey+n)
	return k[:eciesMacKey], k[eciesMacKey:]
}

// kdf2SHA1 is KDF2 (ISO 18033-2) with SHA-1 and no derivation parameter:
// SHA-1(secret || counter) for counter = 1, 2, ... as 32-bit big endian.
func kdf2SHA1(secret []byte, n int) []byte {
	out := make([]byte, 0, n+sha1.Size)
	var ctr [4]byte
	for i := uint32(1); len(out) < n; i++ {
		binary.BigEndian.PutUint32(ctr[:], i)
		h := sha1.New()
		h.Write(secret)
		h.Write(ctr[:])
		out = h.Sum(out)
	}
	return out[:n]
}

// eciesMAC is HMAC-SHA-1 over the ciphertext and the 64-bit length (in
// bits) of the empty encoding vector.
func eciesMAC(key, c []byte) []byte {
	m := hmac.New(sha1.New, key)
	m.Write(c)
	m.Write(make([]byte, 8))
	return m.Sum(nil)
}
