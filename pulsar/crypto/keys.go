package crypto

import (
	"crypto/ecdh"
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

// pemBlock returns the first PEM block of data that is not EC parameters,
// and the DER of the last "EC PARAMETERS" block before it (nil for none).
func pemBlock(data []byte) (*pem.Block, []byte, error) {
	if len(data) > maxKeyFile {
		return nil, nil, fmt.Errorf("%w: key of %d bytes", ErrInvalidKey, len(data))
	}
	var params []byte
	for {
		b, rest := pem.Decode(data)
		if b == nil {
			return nil, nil, fmt.Errorf("%w: no PEM key", ErrInvalidKey)
		}
		if b.Type != "EC PARAMETERS" {
			return b, params, nil
		}
		params = b.Bytes
		data = rest
	}
}

// parsePublicKey parses a PEM public key: PKIX, PKCS#1 (RSA), or the
// subject key of an X.509 certificate (as the Java client, which takes it
// without checking the certificate). EC keys are read by
// parseECPublicKeyInfo, with named or explicit curve parameters.
func parsePublicKey(data []byte) (publicKey, error) {
	b, params, err := pemBlock(data)
	if err != nil {
		return nil, err
	}
	der := b.Bytes
	if b.Type == "CERTIFICATE" {
		if der, err = certificateKeyInfo(der); err != nil {
			return nil, err
		}
	}
	if ek, ok, err := parseECPublicKeyInfo(der, params); ok {
		if err != nil {
			return nil, err
		}
		return ecPublic{ek}, nil
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		if rk, err2 := x509.ParsePKCS1PublicKey(der); err2 == nil {
			k = rk
		} else {
			return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
		}
	}
	switch k := k.(type) {
	case *rsa.PublicKey:
		return rsaPublic{k}, nil
	case *ecdh.PublicKey:
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedKey, k.Curve())
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnsupportedKey, k)
	}
}

// parsePrivateKey parses a PEM private key: PKCS#1 (RSA), SEC 1 (EC) or
// PKCS#8. EC keys are read by parseSEC1 and parseECPKCS8, with named or
// explicit curve parameters.
func parsePrivateKey(data []byte) (privateKey, error) {
	b, params, err := pemBlock(data)
	if err != nil {
		return nil, err
	}
	switch b.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
		}
		return rsaPrivate{k}, nil
	case "EC PRIVATE KEY":
		k, err := parseSEC1(b.Bytes, nil, params)
		if err != nil {
			return nil, err
		}
		return ecPrivate{k}, nil
	}
	if ek, ok, err := parseECPKCS8(b.Bytes); ok {
		if err != nil {
			return nil, err
		}
		return ecPrivate{ek}, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return rsaPrivate{k}, nil
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnsupportedKey, k)
	}
}
