package producer

import (
	"fmt"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/proto"
)

// Encryptor seals payloads for end-to-end encryption (Options.Encryptor).
// It is called with the producer's lock held, once per frame written: a
// whole entry, or each chunk of a chunked one (so every chunk carries its
// own IV, as Pulsar's clients send them).
type Encryptor interface {
	// Encrypt returns payload sealed and writes the encryption fields into
	// md; it applies the producer's crypto-failure action itself (returning
	// payload as it is to send it unencrypted).
	Encrypt(md *proto.MessageMetadata, payload []byte) ([]byte, error)
	// Overhead bounds the bytes encryption adds to a frame (metadata and
	// ciphertext), so that chunks leave room for it.
	Overhead() int
}

// seal is the payload of a frame to write with metadata md: sealed when
// the producer encrypts. Called with p.mu held.
func (p *Producer) seal(md *proto.MessageMetadata, payload []byte) ([]byte, error) {
	if p.opts.Encryptor == nil {
		return payload, nil
	}
	out, err := p.opts.Encryptor.Encrypt(md, payload)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrCrypto, err)
	}
	return out, nil
}

// encryptionOverhead is what a chunk must leave room for. Called with
// p.mu held.
func (p *Producer) encryptionOverhead() int {
	if p.opts.Encryptor == nil {
		return 0
	}
	return p.opts.Encryptor.Overhead()
}
