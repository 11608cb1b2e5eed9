package crypto

// MessageCrypto seals and opens message payloads. Its methods are safe for
// concurrent use.
type MessageCrypto interface {
	// AddPublicKeyCipher makes a new data key and wraps it with the public
	// key of each name (from keyReader). Producers call it on creation and
	// at every key rotation.
	AddPublicKeyCipher(keyNames []string, keyReader KeyReader) error
	// RemoveKeyCipher forgets the wrapped data key of keyName; false for an
	// empty name.
	RemoveKeyCipher(keyName string) bool
	// Encrypt seals payload under the data key and writes the wrapped data
	// keys of encKeys and the IV into msgMetadata.
	Encrypt(encKeys []string, keyReader KeyReader, msgMetadata MessageMetadataSupplier, payload []byte) ([]byte, error)
	// Decrypt opens payload with the data key that one of msgMetadata's
	// wrapped keys gives (unwrapped with keyReader's private key, cached).
	Decrypt(msgMetadata MessageMetadataSupplier, payload []byte, keyReader KeyReader) ([]byte, error)
}
