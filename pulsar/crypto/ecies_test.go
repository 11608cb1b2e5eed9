package crypto

import (
	"bytes"
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// KDF2 with SHA-1 is SHA-1(secret || counter), counter from 1: checked
// against the definition block by block.
func TestKDF2SHA1(t *testing.T) {
	secret := []byte("shared")
	out := kdf2SHA1(secret, 45)
	h1 := sha1.Sum(append(bytes.Clone(secret), 0, 0, 0, 1))
	h2 := sha1.Sum(append(bytes.Clone(secret), 0, 0, 0, 2))
	h3 := sha1.Sum(append(bytes.Clone(secret), 0, 0, 0, 3))
	want := append(append(h1[:], h2[:]...), h3[:5]...)
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(out))
}

// The ECIES layout: V (uncompressed ephemeral point) || C || HMAC-SHA-1 tag,
// with K = KDF2(V || Z) split into the MAC key (16 bytes) then the stream.
func TestECIESLayout(t *testing.T) {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	msg := bytes.Repeat([]byte{0xAB}, DataKeySize)
	w, err := eciesSeal(priv.PublicKey(), msg)
	require.NoError(t, err)
	require.Len(t, w, 65+DataKeySize+sha1.Size)
	assert.Equal(t, byte(0x04), w[0])

	eph, err := ecdh.P256().NewPublicKey(w[:65])
	require.NoError(t, err)
	z, err := priv.ECDH(eph)
	require.NoError(t, err)
	k := kdf2SHA1(append(bytes.Clone(w[:65]), z...), 16+DataKeySize)
	c := w[65 : 65+DataKeySize]
	for i := range c {
		assert.Equal(t, msg[i], c[i]^k[16+i])
	}
	m := hmac.New(sha1.New, k[:16])
	m.Write(c)
	m.Write(make([]byte, 8))
	assert.Equal(t, m.Sum(nil), w[65+DataKeySize:])

	out, err := eciesOpen(priv, w)
	require.NoError(t, err)
	assert.Equal(t, msg, out)
}

func TestECIESRejectsBadInput(t *testing.T) {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	w, err := eciesSeal(priv.PublicKey(), make([]byte, DataKeySize))
	require.NoError(t, err)
	bad := map[string][]byte{
		"empty":       nil,
		"point only":  w[:65],
		"truncated":   w[:len(w)-1],
		"bad point":   append([]byte{0x04}, bytes.Repeat([]byte{0xff}, len(w)-1)...),
		"flipped tag": append(bytes.Clone(w[:len(w)-1]), w[len(w)-1]^1),
		"flipped c":   append(append(bytes.Clone(w[:70]), w[70]^1), w[71:]...),
		"huge":        make([]byte, maxWrappedKey+1),
	}
	for name, b := range bad {
		_, err := eciesOpen(priv, b)
		require.ErrorIs(t, err, ErrDataKey, name)
	}
}
