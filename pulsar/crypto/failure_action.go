package crypto

// What a producer does when it cannot encrypt a message
// (ProducerEncryptionInfo.ProducerCryptoFailureAction).
const (
	// ProducerCryptoFailureActionFail fails the send (the default).
	ProducerCryptoFailureActionFail = iota
	// ProducerCryptoFailureActionSend sends the message unencrypted.
	ProducerCryptoFailureActionSend
)

// What a consumer or reader does with a message it cannot decrypt
// (MessageDecryptionInfo.ConsumerCryptoFailureAction).
const (
	// ConsumerCryptoFailureActionFail does not deliver the message and
	// asks for its redelivery later (a negative acknowledgement), until it
	// can be decrypted (the default).
	ConsumerCryptoFailureActionFail = iota
	// ConsumerCryptoFailureActionDiscard acknowledges the message (with
	// the validation error DecryptionError) without delivering it.
	ConsumerCryptoFailureActionDiscard
	// ConsumerCryptoFailureActionConsume delivers the payload as it came,
	// encrypted (and compressed, and a whole batch or a single chunk), with
	// Message.GetEncryptionContext saying how to decrypt it.
	ConsumerCryptoFailureActionConsume
)
