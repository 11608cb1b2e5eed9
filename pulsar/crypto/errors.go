package crypto

import (
	"errors"
	"fmt"
)

// Errors of this package; every error it returns wraps one of them.
var (
	// ErrKeyReader: the KeyReader is missing or failed to give a key.
	ErrKeyReader = errors.New("crypto: key reader")
	// ErrInvalidKey: a PEM key that cannot be parsed.
	ErrInvalidKey = errors.New("crypto: invalid key")
	// ErrUnsupportedKey: a key of a type or curve that cannot wrap data
	// keys (RSA, and EC on P-256, P-384, P-521 can).
	ErrUnsupportedKey = errors.New("crypto: unsupported key")
	// ErrDataKey: no encryption key of the message could be unwrapped
	// (wrong or missing private key, a forged or truncated wrapped key).
	ErrDataKey = errors.New("crypto: unable to decrypt data key")
	// ErrDecrypt: the payload does not open under the data key (wrong key,
	// bad IV, tampered or truncated ciphertext).
	ErrDecrypt = errors.New("crypto: unable to decrypt payload")
	// ErrEncrypt: a payload could not be sealed (no key could be loaded).
	ErrEncrypt = errors.New("crypto: unable to encrypt payload")
)

// UnsupportedCurveError is the error of an EC key on a curve that cannot
// wrap data keys: the standard library has P-256, P-384 and P-521 only, so
// secp256k1 (which BouncyCastle and so the Java client accept) and other
// curves are refused by name. It wraps ErrUnsupportedKey.
type UnsupportedCurveError struct {
	// Curve names the curve: "secp256k1", the OID of another named curve,
	// or a description of explicit parameters that match no known curve.
	Curve string
}

// Error names the curve.
func (e *UnsupportedCurveError) Error() string {
	return fmt.Sprintf("%v: EC curve %s (P-256, P-384 and P-521 are supported)", ErrUnsupportedKey, e.Curve)
}

// Unwrap returns ErrUnsupportedKey.
func (e *UnsupportedCurveError) Unwrap() error { return ErrUnsupportedKey }
