package crypto

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pulsargo/sdk/internal/proto"
)

func newProducerCrypto(t *testing.T) *DefaultMessageCrypto {
	t.Helper()
	d, err := NewDefaultMessageCrypto("test producer", true, nil)
	require.NoError(t, err)
	return d
}

func newConsumerCrypto(t *testing.T) *DefaultMessageCrypto {
	t.Helper()
	d, err := NewDefaultMessageCrypto("test consumer", false, nil)
	require.NoError(t, err)
	return d
}

func TestRoundTripEveryKeyType(t *testing.T) {
	for _, kind := range []string{"rsa", "p256", "p384", "p521"} {
		t.Run(kind, func(t *testing.T) {
			kr := keyPair(t, kind)
			md := &proto.MessageMetadata{}
			plain := bytes.Repeat([]byte("pulsar "), 100)
			sealed, err := newProducerCrypto(t).Encrypt([]string{"k1"}, kr, NewMessageMetadataSupplier(md), plain)
			require.NoError(t, err)
			require.Len(t, md.EncryptionKeys, 1)
			assert.Equal(t, "k1", md.EncryptionKeys[0].GetKey())
			assert.Len(t, md.EncryptionParam, IVSize)
			assert.Len(t, sealed, len(plain)+TagSize)
			assert.NotContains(t, string(sealed), "pulsar")

			out, err := newConsumerCrypto(t).Decrypt(NewMessageMetadataSupplier(md), sealed, kr)
			require.NoError(t, err)
			assert.Equal(t, plain, out)
		})
	}
}

// The wire format: AES-256-GCM, 12-byte IV in encryption_param, 16-byte
// tag appended; the data key is what RSA-OAEP(SHA-1) unwraps. Checked by
// opening the ciphertext with the standard library directly.
func TestWireFormatIsAESGCMWithOAEPWrappedKey(t *testing.T) {
	kr := keyPair(t, "rsa")
	md := &proto.MessageMetadata{}
	sealed, err := newProducerCrypto(t).Encrypt([]string{"k"}, kr, NewMessageMetadataSupplier(md), []byte("hello"))
	require.NoError(t, err)
	privInfo, err := kr.PrivateKey("k", nil)
	require.NoError(t, err)
	priv, err := parsePrivateKey(privInfo.Key())
	require.NoError(t, err)
	dataKey, err := priv.unwrap(md.EncryptionKeys[0].Value)
	require.NoError(t, err)
	require.Len(t, dataKey, DataKeySize)
	b, err := aes.NewCipher(dataKey)
	require.NoError(t, err)
	gcm, err := cipher.NewGCM(b)
	require.NoError(t, err)
	out, err := gcm.Open(nil, md.EncryptionParam, sealed, nil)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(out))
}

func TestEncryptWithoutKeysReturnsPayload(t *testing.T) {
	md := &proto.MessageMetadata{}
	out, err := newProducerCrypto(t).Encrypt(nil, nil, NewMessageMetadataSupplier(md), []byte("x"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(out))
	assert.Empty(t, md.EncryptionKeys)
}

func TestEncryptFailsForBadPublicKeys(t *testing.T) {
	pub, _ := pemPair(t, "rsa")
	edPub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	edDER, err := x509.MarshalPKIXPublicKey(edPub)
	require.NoError(t, err)
	cases := map[string]struct {
		key  []byte
		want error
	}{
		"truncated PEM": {pub[:len(pub)/2], ErrInvalidKey},
		"not PEM":       {[]byte("not a key"), ErrInvalidKey},
		"bad DER":       {pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{0x30, 0x82, 0xff, 0xff}}), ErrInvalidKey},
		"ed25519":       {pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: edDER}), ErrUnsupportedKey},
		"missing":       {nil, ErrKeyReader},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			kr := &mapReader{pub: map[string][]byte{}}
			if c.key != nil {
				kr.pub["k"] = c.key
			}
			md := &proto.MessageMetadata{}
			_, err := newProducerCrypto(t).Encrypt([]string{"k"}, kr, NewMessageMetadataSupplier(md), []byte("x"))
			require.ErrorIs(t, err, ErrEncrypt)
			require.ErrorIs(t, err, c.want)
		})
	}
}

// sealedMessage returns a message sealed for the key pair of kind, its
// reader and metadata.
func sealedMessage(t *testing.T, kind string) (*FileKeyReader, *proto.MessageMetadata, []byte) {
	t.Helper()
	kr := keyPair(t, kind)
	md := &proto.MessageMetadata{}
	sealed, err := newProducerCrypto(t).Encrypt([]string{"k"}, kr, NewMessageMetadataSupplier(md), []byte("secret payload"))
	require.NoError(t, err)
	return kr, md, sealed
}

func TestDecryptBadInputIsTypedError(t *testing.T) {
	for _, kind := range []string{"rsa", "p256"} {
		t.Run(kind, func(t *testing.T) {
			kr, md, sealed := sealedMessage(t, kind)
			wrapped := md.EncryptionKeys[0].Value
			cases := map[string]struct {
				edit func(md *proto.MessageMetadata, payload []byte) []byte
				want error
			}{
				"truncated key": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionKeys[0].Value = wrapped[:len(wrapped)-7]
					return p
				}, ErrDataKey},
				"empty key": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionKeys[0].Value = nil
					return p
				}, ErrDataKey},
				"forged key": {func(md *proto.MessageMetadata, p []byte) []byte {
					f := bytes.Clone(wrapped)
					f[len(f)/2] ^= 0x40
					md.EncryptionKeys[0].Value = f
					return p
				}, ErrDataKey},
				"huge key": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionKeys[0].Value = make([]byte, 1<<20)
					return p
				}, ErrDataKey},
				"no keys": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionKeys = nil
					return p
				}, ErrDataKey},
				"short IV": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionParam = md.EncryptionParam[:11]
					return p
				}, ErrDecrypt},
				"long IV": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionParam = make([]byte, 1<<16)
					return p
				}, ErrDecrypt},
				"no IV": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionParam = nil
					return p
				}, ErrDecrypt},
				"wrong IV": {func(md *proto.MessageMetadata, p []byte) []byte {
					md.EncryptionParam = bytes.Repeat([]byte{1}, IVSize)
					return p
				}, ErrDecrypt},
				"tampered payload": {func(md *proto.MessageMetadata, p []byte) []byte {
					p = bytes.Clone(p)
					p[0] ^= 1
					return p
				}, ErrDecrypt},
				"truncated payload": {func(md *proto.MessageMetadata, p []byte) []byte { return p[:TagSize-1] }, ErrDecrypt},
				"empty payload":     {func(md *proto.MessageMetadata, p []byte) []byte { return nil }, ErrDecrypt},
			}
			for name, c := range cases {
				t.Run(name, func(t *testing.T) {
					m := &proto.MessageMetadata{EncryptionParam: bytes.Clone(md.EncryptionParam),
						EncryptionKeys: []*proto.EncryptionKeys{{Key: md.EncryptionKeys[0].Key, Value: wrapped}}}
					p := c.edit(m, sealed)
					_, err := newConsumerCrypto(t).Decrypt(NewMessageMetadataSupplier(m), p, kr)
					require.ErrorIs(t, err, c.want)
				})
			}
		})
	}
}

func TestDecryptWithTheWrongPrivateKey(t *testing.T) {
	for _, kinds := range [][2]string{{"rsa", "rsa"}, {"p256", "p256"}, {"rsa", "p256"}, {"p256", "p384"}} {
		t.Run(kinds[0]+"-"+kinds[1], func(t *testing.T) {
			_, md, sealed := sealedMessage(t, kinds[0])
			other := keyPair(t, kinds[1])
			_, err := newConsumerCrypto(t).Decrypt(NewMessageMetadataSupplier(md), sealed, other)
			require.ErrorIs(t, err, ErrDataKey)
		})
	}
}

func TestDecryptWithoutKeyReader(t *testing.T) {
	_, md, sealed := sealedMessage(t, "rsa")
	_, err := newConsumerCrypto(t).Decrypt(NewMessageMetadataSupplier(md), sealed, nil)
	require.ErrorIs(t, err, ErrKeyReader)
}

// The consumer unwraps a data key once: later messages under it are opened
// from the cache, without the key reader.
func TestDecryptCachesDataKeys(t *testing.T) {
	pub, priv := pemPair(t, "rsa")
	kr := &mapReader{pub: map[string][]byte{"k": pub}, priv: map[string][]byte{"k": priv}}
	p, c := newProducerCrypto(t), newConsumerCrypto(t)
	for i := range 5 {
		md := &proto.MessageMetadata{}
		sealed, err := p.Encrypt([]string{"k"}, kr, NewMessageMetadataSupplier(md), fmt.Appendf(nil, "m%d", i))
		require.NoError(t, err)
		out, err := c.Decrypt(NewMessageMetadataSupplier(md), sealed, kr)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("m%d", i), string(out))
	}
	assert.Equal(t, 1, kr.calls)
}

// A new data key (rotation) changes the wrapped value; a consumer opens
// messages of both keys.
func TestRotationMakesANewDataKey(t *testing.T) {
	kr := keyPair(t, "rsa")
	p, c := newProducerCrypto(t), newConsumerCrypto(t)
	var mds []*proto.MessageMetadata
	var sealed [][]byte
	for range 2 {
		md := &proto.MessageMetadata{}
		s, err := p.Encrypt([]string{"k"}, kr, NewMessageMetadataSupplier(md), []byte("m"))
		require.NoError(t, err)
		mds, sealed = append(mds, md), append(sealed, s)
		require.NoError(t, p.AddPublicKeyCipher([]string{"k"}, kr))
	}
	assert.NotEqual(t, mds[0].EncryptionKeys[0].Value, mds[1].EncryptionKeys[0].Value)
	for i := range mds {
		out, err := c.Decrypt(NewMessageMetadataSupplier(mds[i]), sealed[i], kr)
		require.NoError(t, err)
		assert.Equal(t, "m", string(out))
	}
}

// Several keys: any one private key opens the message.
func TestEncryptWithSeveralKeys(t *testing.T) {
	rsaPub, rsaPriv := pemPair(t, "rsa")
	ecPub, ecPriv := pemPair(t, "p256")
	pubs := &mapReader{pub: map[string][]byte{"r": rsaPub, "e": ecPub}}
	md := &proto.MessageMetadata{}
	sealed, err := newProducerCrypto(t).Encrypt([]string{"r", "e"}, pubs, NewMessageMetadataSupplier(md), []byte("both"))
	require.NoError(t, err)
	require.Len(t, md.EncryptionKeys, 2)
	for name, priv := range map[string][]byte{"r": rsaPriv, "e": ecPriv} {
		kr := &mapReader{priv: map[string][]byte{name: priv}}
		out, err := newConsumerCrypto(t).Decrypt(NewMessageMetadataSupplier(md), sealed, kr)
		require.NoError(t, err, name)
		assert.Equal(t, "both", string(out))
	}
}

// The cache of data keys stays bounded however many producers' keys come.
func TestDataKeyCacheIsBounded(t *testing.T) {
	c := newConsumerCrypto(t)
	for i := range maxCachedDataKeys + 10 {
		var d [32]byte
		d[0], d[1] = byte(i), byte(i>>8)
		c.remember(d, []byte("k"))
	}
	assert.Len(t, c.cache, maxCachedDataKeys)
	assert.Len(t, c.order, maxCachedDataKeys)
}

func TestRemoveKeyCipher(t *testing.T) {
	p := newProducerCrypto(t)
	assert.False(t, p.RemoveKeyCipher(""))
	kr := keyPair(t, "rsa")
	require.NoError(t, p.AddPublicKeyCipher([]string{"k"}, kr))
	assert.True(t, p.RemoveKeyCipher("k"))
	assert.Empty(t, p.wrapped)
}

func TestMetadataSupplierUpserts(t *testing.T) {
	md := &proto.MessageMetadata{}
	s := NewMessageMetadataSupplier(md)
	s.UpsertEncryptionKey(*NewEncryptionKeyInfo("a", []byte{1}, map[string]string{"x": "y"}))
	s.UpsertEncryptionKey(*NewEncryptionKeyInfo("b", []byte{2}, nil))
	s.UpsertEncryptionKey(*NewEncryptionKeyInfo("a", []byte{3}, nil))
	keys := s.EncryptionKeys()
	require.Len(t, keys, 2)
	assert.Equal(t, "a", keys[0].Name())
	assert.Equal(t, []byte{3}, keys[0].Key())
	assert.Equal(t, "b", keys[1].Name())
	s.SetEncryptionParam([]byte{9})
	assert.Equal(t, []byte{9}, s.EncryptionParam())
	var none MessageMetadataSupplier = NewMessageMetadataSupplier(nil)
	assert.Nil(t, none.EncryptionKeys())
	none.UpsertEncryptionKey(*NewEncryptionKeyInfo("a", nil, nil))
	assert.Nil(t, none.EncryptionParam())
}

func TestFileKeyReaderErrors(t *testing.T) {
	_, err := NewFileKeyReader("/nonexistent/pub.pem", "").PublicKey("k", nil)
	require.ErrorIs(t, err, ErrKeyReader)
	_, err = NewFileKeyReader("", "").PrivateKey("k", nil)
	require.ErrorIs(t, err, ErrKeyReader)
	kr := keyPair(t, "rsa")
	info, err := kr.PublicKey("name", map[string]string{"v": "1"})
	require.NoError(t, err)
	assert.Equal(t, "name", info.Name())
	assert.Equal(t, map[string]string{"v": "1"}, info.Metadata())
}
