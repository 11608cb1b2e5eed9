package pulsar

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/producer"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/pulsar/crypto"
	plog "github.com/pulsargo/sdk/pulsar/log"
)

// DataKeyRotationInterval is how often a producer makes a new data key
// (and wraps it again with its keys): every 4 hours, as the Java client.
const DataKeyRotationInterval = 4 * time.Hour

// producerCrypto is the encryption of one producer, shared by its
// partitions: the MessageCrypto, the keys and the rotation of the data key.
type producerCrypto struct {
	keys   []string
	reader crypto.KeyReader
	mc     crypto.MessageCrypto
	action int
	clock  clock.Clock
	log    *slog.Logger

	mu   sync.Mutex
	next time.Time // when the data key is next rotated; zero: at the first message
}

// newProducerCrypto checks o.Encryption; nil when the producer does not
// encrypt.
func newProducerCrypto(o ProducerOptions, logger *slog.Logger) (*producerCrypto, error) {
	enc := o.Encryption
	if enc == nil || len(enc.Keys) == 0 {
		return nil, nil
	}
	if enc.KeyReader == nil {
		return nil, invalidOption(InvalidConfiguration, "encryption is enabled, KeyReader can not be nil")
	}
	if a := enc.ProducerCryptoFailureAction; a != crypto.ProducerCryptoFailureActionFail && a != crypto.ProducerCryptoFailureActionSend {
		return nil, fmt.Errorf("%w: unknown ProducerCryptoFailureAction %d", ErrInvalidOptions, a)
	}
	mc := enc.MessageCrypto
	if mc == nil {
		d, err := crypto.NewDefaultMessageCrypto("producer "+o.Topic, true, plog.NewLoggerWithSlog(logger))
		if err != nil {
			return nil, publicErr(fmt.Errorf("%w: %w", api.ErrCrypto, err))
		}
		mc = d
	}
	return &producerCrypto{keys: append([]string(nil), enc.Keys...), reader: enc.KeyReader, mc: mc,
		action: enc.ProducerCryptoFailureAction, clock: clock.Real{}, log: logger}, nil
}

// rotate makes a new data key when the rotation interval has passed (and
// for the first message).
func (pc *producerCrypto) rotate() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.clock.Now()
	if !pc.next.IsZero() && now.Before(pc.next) {
		return
	}
	pc.next = now.Add(DataKeyRotationInterval)
	if err := pc.mc.AddPublicKeyCipher(pc.keys, pc.reader); err != nil {
		// Encrypt loads the keys again and applies the failure action.
		pc.log.Warn("making a new data key failed", "keys", pc.keys, "err", err)
	}
}

// engine returns the producer.Encryptor of one partition's engine.
func (pc *producerCrypto) engine() producer.Encryptor {
	if pc == nil {
		return nil
	}
	return &engineEncryptor{pc: pc}
}

// engineEncryptor adapts producerCrypto to one engine; the engine calls it
// with its lock held, which guards overhead.
type engineEncryptor struct {
	pc       *producerCrypto
	overhead int // largest seen
}

// Encrypt seals payload, or applies the failure action.
func (e *engineEncryptor) Encrypt(md *proto.MessageMetadata, payload []byte) ([]byte, error) {
	pc := e.pc
	pc.rotate()
	before := gproto.Size(md)
	out, err := pc.mc.Encrypt(pc.keys, pc.reader, crypto.NewMessageMetadataSupplier(md), payload)
	if err != nil {
		md.EncryptionKeys, md.EncryptionParam, md.EncryptionAlgo = nil, nil, nil
		if pc.action == crypto.ProducerCryptoFailureActionSend {
			pc.log.Warn("encryption failed: sending the message unencrypted (ProducerCryptoFailureActionSend)", "err", err)
			return payload, nil
		}
		return nil, fmt.Errorf("encryption failed, ProducerCryptoFailureAction is Fail: %w", err)
	}
	e.overhead = max(e.overhead, gproto.Size(md)-before+len(out)-len(payload))
	return out, nil
}

// Overhead is the largest overhead seen, at least an estimate that holds
// for RSA keys up to 8192 bits.
func (e *engineEncryptor) Overhead() int {
	est := 2*crypto.IVSize + crypto.TagSize
	for _, k := range e.pc.keys {
		est += len(k) + 1024 + 16
	}
	return max(e.overhead, est)
}
