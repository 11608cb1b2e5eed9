package crypto

import (
	"fmt"
	"io"
	"os"
)

// KeyReader supplies the keys of end-to-end encryption by name: the
// producer asks for public keys, the consumer for private keys (with the
// metadata the producer's key came with).
type KeyReader interface {
	// PublicKey returns the public key named keyName, used by the
	// producer to wrap the data key.
	PublicKey(keyName string, metadata map[string]string) (*EncryptionKeyInfo, error)
	// PrivateKey returns the private key named keyName, used by the
	// consumer to unwrap the data key.
	PrivateKey(keyName string, metadata map[string]string) (*EncryptionKeyInfo, error)
}

// EncryptionKeyInfo is a named key (a PEM key from a KeyReader, or a
// wrapped data key in message metadata) with its metadata.
type EncryptionKeyInfo struct {
	metadata map[string]string
	key      []byte
	name     string
}

// NewEncryptionKeyInfo returns the key named name with value key and
// metadata (may be nil).
func NewEncryptionKeyInfo(name string, key []byte, metadata map[string]string) *EncryptionKeyInfo {
	return &EncryptionKeyInfo{metadata: metadata, key: key, name: name}
}

// Name returns the key's name.
func (k *EncryptionKeyInfo) Name() string { return k.name }

// Key returns the key's value.
func (k *EncryptionKeyInfo) Key() []byte { return k.key }

// Metadata returns the key's metadata (nil for none).
func (k *EncryptionKeyInfo) Metadata() map[string]string { return k.metadata }

// FileKeyReader is a KeyReader that reads one public and one private key
// file, whatever name is asked for; metadata is passed through.
type FileKeyReader struct {
	publicKeyPath  string
	privateKeyPath string
}

// NewFileKeyReader returns a FileKeyReader of the two PEM files (either
// path may be empty when that side is not needed).
func NewFileKeyReader(publicKeyPath, privateKeyPath string) *FileKeyReader {
	return &FileKeyReader{publicKeyPath: publicKeyPath, privateKeyPath: privateKeyPath}
}

// PublicKey reads the public key file.
func (r *FileKeyReader) PublicKey(keyName string, metadata map[string]string) (*EncryptionKeyInfo, error) {
	return readKeyFile(keyName, r.publicKeyPath, metadata)
}

// PrivateKey reads the private key file.
func (r *FileKeyReader) PrivateKey(keyName string, metadata map[string]string) (*EncryptionKeyInfo, error) {
	return readKeyFile(keyName, r.privateKeyPath, metadata)
}

// maxKeyFile bounds a key file: PEM keys are a few KiB.
const maxKeyFile = 1 << 20

func readKeyFile(name, path string, metadata map[string]string) (*EncryptionKeyInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyReader, err)
	}
	defer f.Close()
	key, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyReader, err)
	}
	if len(key) > maxKeyFile {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrInvalidKey, path, maxKeyFile)
	}
	return NewEncryptionKeyInfo(name, key, metadata), nil
}
