// Package keystore reads Java KeyStores, as Pulsar's broker reads them
// for tlsKeyStore and tlsTrustStore: PKCS#12 (RFC 7292, with the PBES2
// and PKCS#12 3DES encryption keytool writes, the MAC checked) and JKS
// (Sun's format, its SHA-1 integrity digest and key protection checked).
//
// Input is untrusted: every length is checked against what is left, no
// allocation is sized by a length the input claims, key derivation
// iteration counts are bounded, and every failure is an error wrapping
// ErrKeyStore (ErrPassword for a wrong password).
package keystore

import (
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
)

// ErrKeyStore is wrapped by every error of this package.
var ErrKeyStore = errors.New("keystore")

// ErrPassword is wrapped (with ErrKeyStore) when the integrity check or
// a key's protection does not verify with the password given.
var ErrPassword = errors.New("keystore: wrong password or corrupted file")

// MaxSize is the largest keystore file Read accepts.
const MaxSize = 1 << 20

// maxIterations bounds the key-derivation iteration counts a file may ask
// for (keytool writes 10,000).
const maxIterations = 1 << 22

// KeyEntry is a private key and its certificate chain, leaf first.
type KeyEntry struct {
	Alias string
	Key   crypto.PrivateKey
	Chain []*x509.Certificate
}

// Store is what a keystore holds.
type Store struct {
	// Keys are the private key entries.
	Keys []KeyEntry
	// Trusted are the trusted certificate entries.
	Trusted []*x509.Certificate
}

// Read parses a keystore of type typ ("PKCS12" or "JKS", any case, as
// Java's KeyStore.getInstance) with password.
func Read(typ string, data []byte, password string) (*Store, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrKeyStore, len(data), MaxSize)
	}
	switch {
	case equalFold(typ, "PKCS12"):
		return ReadPKCS12(data, password)
	case equalFold(typ, "JKS"):
		return ReadJKS(data, password)
	}
	return nil, fmt.Errorf("%w: type %q: brokerstub reads PKCS12 and JKS", ErrKeyStore, typ)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// errorf wraps ErrKeyStore (and any %w of format).
func errorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrKeyStore}, args...)...)
}

// parsePKCS8 parses a decrypted private key (PKCS#8, or PKCS#1 / SEC 1
// as some writers store them).
func parsePKCS8(der []byte) (crypto.PrivateKey, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errorf("private key: not PKCS#8, PKCS#1 or SEC 1")
}
