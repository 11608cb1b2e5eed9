package consumer

import (
	"errors"
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// Decryptor opens end-to-end encrypted payloads (Options.Decryptor). It is
// called on the engine's goroutine, once per entry (each chunk of a chunked
// message on its own), before chunk assembly, decompression and batch
// parsing.
type Decryptor interface {
	// Decrypt returns the plaintext of payload, sealed as md says.
	Decrypt(md *proto.MessageMetadata, payload []byte) ([]byte, error)
}

// CryptoAction is what the engine does with an entry it cannot decrypt
// (Options.CryptoFailureAction); the values are the official client's
// ConsumerCryptoFailureAction constants.
type CryptoAction int

// The crypto-failure actions.
const (
	// CryptoFail keeps the entry from the application and asks for its
	// redelivery after NackDelay (the default).
	CryptoFail CryptoAction = iota
	// CryptoDiscard acknowledges the entry with the validation error
	// DecryptionError (readers skip it).
	CryptoDiscard
	// CryptoConsume delivers the entry's payload as it came, with
	// Message.Encrypted set.
	CryptoConsume
)

// errNotDecrypting: an encrypted entry reached an engine without a
// Decryptor.
var errNotDecrypting = errors.New("the message is encrypted and the consumer is not configured to decrypt it")

// decrypt returns the plaintext of an entry's payload, and false when it
// could not be decrypted and the crypto-failure action took the entry.
func (e *Engine[T]) decrypt(entry messageid.ID, cm *proto.CommandMessage, md *proto.MessageMetadata, payload []byte) ([]byte, bool) {
	if len(md.GetEncryptionKeys()) == 0 {
		return payload, true
	}
	err := errNotDecrypting
	if e.o.Decryptor != nil {
		out, derr := e.o.Decryptor.Decrypt(md, payload)
		if derr == nil {
			return out, true
		}
		err = derr
	}
	err = fmt.Errorf("%w: %w", api.ErrCrypto, err)
	ids := []messageid.ID{entry}
	switch e.o.CryptoFailureAction {
	case CryptoDiscard:
		e.corrupt(ids, proto.CommandAck_DecryptionError, err)
		e.grant(1)
	case CryptoConsume:
		e.log.Warn("delivering a message that could not be decrypted, still encrypted", "id", entry, "err", err)
		e.accept(&Message{Topic: e.o.Topic, ID: entry, Payload: payload, Meta: md, Encrypted: true,
			RedeliveryCount: cm.GetRedeliveryCount(), BrokerMeta: e.brokerMeta}, ids)
	default:
		e.log.Error("message not delivered: it cannot be decrypted; asking for its redelivery", "id", entry, "err", err)
		e.redeliverLater(ids)
		e.grant(1)
	}
	return nil, false
}
