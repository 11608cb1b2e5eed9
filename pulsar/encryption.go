package pulsar

import "github.com/pulsargo/sdk/pulsar/crypto"

// ProducerEncryptionInfo turns on end-to-end encryption for a producer
// (ProducerOptions.Encryption): every message is sealed under a data key
// that is wrapped with each of Keys (see package crypto for the format).
type ProducerEncryptionInfo struct {
	// KeyReader reads the public keys. Required when Keys is not empty.
	KeyReader crypto.KeyReader
	// MessageCrypto seals the payloads. Default: a
	// crypto.DefaultMessageCrypto, shared by the producer's partitions.
	MessageCrypto crypto.MessageCrypto
	// Keys are the names of the public keys that wrap the data key (each
	// consumer needs the private key of one of them). Empty: no encryption.
	Keys []string
	// ProducerCryptoFailureAction is what a send does when the message
	// cannot be encrypted: crypto.ProducerCryptoFailureActionFail (the
	// default) fails it with CryptoError, ...Send sends it unencrypted.
	ProducerCryptoFailureAction int
}

// MessageDecryptionInfo turns on decryption for a consumer or reader
// (ConsumerOptions.Decryption, ReaderOptions.Decryption).
type MessageDecryptionInfo struct {
	// KeyReader reads the private keys. Without it every encrypted message
	// goes to ConsumerCryptoFailureAction.
	KeyReader crypto.KeyReader
	// MessageCrypto opens the payloads and caches the data keys. Default:
	// a crypto.DefaultMessageCrypto, shared by the partitions.
	MessageCrypto crypto.MessageCrypto
	// ConsumerCryptoFailureAction is what happens to a message that
	// cannot be decrypted: crypto.ConsumerCryptoFailureActionFail (the
	// default) redelivers it after NackRedeliveryDelay, ...Discard
	// acknowledges and drops it, ...Consume delivers it still encrypted
	// with Message.GetEncryptionContext set. A consumer without Decryption
	// fails encrypted messages.
	ConsumerCryptoFailureAction int
}

// EncryptionContext describes a payload delivered still encrypted
// (ConsumerCryptoFailureActionConsume), so that the application can
// decrypt it: Param is the IV, Keys the wrapped data keys by key name;
// after decryption the payload is compressed with CompressionType (to
// UncompressedSize bytes) and is a batch of BatchSize messages when
// BatchSize > 0.
type EncryptionContext struct {
	Keys             map[string]EncryptionKey
	Param            []byte
	Algorithm        string
	CompressionType  CompressionType
	UncompressedSize int
	BatchSize        int
}

// EncryptionKey is a data key wrapped with a public key, and the metadata
// the key came with.
type EncryptionKey struct {
	KeyValue []byte
	Metadata map[string]string
}
