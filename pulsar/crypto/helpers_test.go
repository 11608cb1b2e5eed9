package crypto

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// keyPair writes a PEM key pair of kind ("rsa", "p256", "p384", "p521")
// into a temp dir and returns a FileKeyReader of it.
func keyPair(t *testing.T, kind string) *FileKeyReader {
	t.Helper()
	pub, priv := pemPair(t, kind)
	dir := t.TempDir()
	pubPath, privPath := filepath.Join(dir, "pub.pem"), filepath.Join(dir, "priv.pem")
	require.NoError(t, os.WriteFile(pubPath, pub, 0o600))
	require.NoError(t, os.WriteFile(privPath, priv, 0o600))
	return NewFileKeyReader(pubPath, privPath)
}

// pemPair returns a new PEM public and private key of kind.
func pemPair(t *testing.T, kind string) (pub, priv []byte) {
	t.Helper()
	var pk any
	var privBlock *pem.Block
	switch kind {
	case "rsa":
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		require.NoError(t, err)
		pk = &k.PublicKey
		privBlock = &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
	default:
		curve := map[string]elliptic.Curve{"p256": elliptic.P256(), "p384": elliptic.P384(), "p521": elliptic.P521()}[kind]
		require.NotNil(t, curve, kind)
		k, err := ecdsa.GenerateKey(curve, rand.Reader)
		require.NoError(t, err)
		pk = &k.PublicKey
		der, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		privBlock = &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
	}
	der, err := x509.MarshalPKIXPublicKey(pk)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), pem.EncodeToMemory(privBlock)
}

// mapReader is a KeyReader of keys in memory, by name.
type mapReader struct {
	pub, priv map[string][]byte
	calls     int
}

func (r *mapReader) PublicKey(name string, meta map[string]string) (*EncryptionKeyInfo, error) {
	k, ok := r.pub[name]
	if !ok {
		return nil, os.ErrNotExist
	}
	return NewEncryptionKeyInfo(name, k, meta), nil
}

func (r *mapReader) PrivateKey(name string, meta map[string]string) (*EncryptionKeyInfo, error) {
	r.calls++
	k, ok := r.priv[name]
	if !ok {
		return nil, os.ErrNotExist
	}
	return NewEncryptionKeyInfo(name, k, meta), nil
}
