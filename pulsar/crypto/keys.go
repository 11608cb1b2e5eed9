package crypto

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1" //nolint:gosec // RSA-OAEP with SHA-1 is Pulsar's wire format
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// maxWrappedKey bounds a wrapped data key read from metadata: an RSA-16384
// ciphertext or an ECIES one on P-521 is far smaller.
const maxWrappedKey = 4096

// publicKey is a parsed public key that can wrap a data key.
type publicKey interface {
	wrap(dataKey []byte) ([]byte, error)
}

// privateKey is a parsed private key that can unwrap a data key.
type privateKey interface {
	unwrap(wrapped []byte) ([]byte, error)
}

type rsaPublic struct{ k *rsa.PublicKey }
type rsaPrivate struct{ k *rsa.PrivateKey }
type ecPublic struct{ k *ecdh.PublicKey }
type ecPrivate struct{ k *ecdh.PrivateKey }

func (r rsaPublic) wrap(dataKey []byte) ([]byte, error) {
	return rsa.EncryptOAEP(sha1.New(), rand.Reader, r.k, dataKey, nil)
}

func (r rsaPrivate) unwrap(wrapped []byte) ([]byte, error) {
	if len(wrapped) != r.k.Size() {
		return nil, fmt.Errorf("%w: wrapped key of %d bytes for an RSA key of %d", ErrDataKey, len(wrapped), r.k.Size())
	}
	return rsa.DecryptOAEP(sha1.New(), nil, r.k, wrapped, nil)
}

func (e ecPublic) wrap(dataKey []byte) ([]byte, error) { return eciesSeal(e.k, dataKey) }

func (e ecPrivate) unwrap(wrapped []byte) ([]byte, error) { return eciesOpen(e.k, wrapped) }

// pemBlock returns the first PEM block of data that is not EC parameters.
func pemBlock(data []byte) (*pem.Block, error) {
	for {
		b, rest := pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("%w: no PEM key", ErrInvalidKey)
		}
		if b.Type != "EC PARAMETERS" {
			return b, nil
		}
		data = rest
	}
}

// parsePublicKey parses a PEM public key (PKIX, or an X.509 certificate).
func parsePublicKey(data []byte) (publicKey, error) {
	b, err := pemBlock(data)
	if err != nil {
		return nil, err
	}
	var k any
	if b.Type == "CERTIFICATE" {
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
		}
		k = c.PublicKey
	} else if k, err = x509.ParsePKIXPublicKey(b.Bytes); err != nil {
		if rk, err2 := x509.ParsePKCS1PublicKey(b.Bytes); err2 == nil {
			k = rk
		} else {
			return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
		}
	}
	switch k := k.(type) {
	case *rsa.PublicKey:
		return rsaPublic{k}, nil
	case *ecdsa.PublicKey:
		ek, err := k.ECDH()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
		}
		return ecPublic{ek}, nil
	case *ecdh.PublicKey:
		if k.Curve() == ecdh.X25519() {
			return nil, fmt.Errorf("%w: X25519", ErrUnsupportedKey)
		}
		return ecPublic{k}, nil
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnsupportedKey, k)
	}
}

// parsePrivateKey parses a PEM private key (PKCS#1, SEC 1 or PKCS#8).
func parsePrivateKey(data []byte) (privateKey, error) {
	b, err := pemBlock(data)
	if err != nil {
		return nil, err
	}
	var k any
	switch b.Type {
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(b.Bytes)
	default:
		k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return rsaPrivate{k}, nil
	case *ecdsa.PrivateKey:
		ek, err := k.ECDH()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
		}
		return ecPrivate{ek}, nil
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnsupportedKey, k)
	}
}
