package pulsar

import (
	"errors"
	"log/slog"

	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/pulsar/crypto"
	plog "github.com/pulsargo/sdk/pulsar/log"
)

// errNoKeyReader: Decryption without a KeyReader meets an encrypted
// message.
var errNoKeyReader = errors.New("KeyReader is not set: cannot decrypt the message")

// applyDecryption sets an engine's decryption from d (nil: none, and the
// engine fails encrypted messages). Each engine gets its own
// DefaultMessageCrypto when d has none, so its data-key cache is owned by
// one goroutine's calls.
func applyDecryption(o *consumer.Options[ConsumerMessage], d *MessageDecryptionInfo, logger *slog.Logger) {
	if d == nil {
		return
	}
	o.CryptoFailureAction = consumer.CryptoAction(d.ConsumerCryptoFailureAction)
	mc := d.MessageCrypto
	if mc == nil {
		// It cannot fail without key generation.
		dmc, _ := crypto.NewDefaultMessageCrypto("consumer "+o.Topic, false, plog.NewLoggerWithSlog(logger))
		mc = dmc
	}
	o.Decryptor = engineDecryptor{reader: d.KeyReader, mc: mc}
}

// engineDecryptor adapts a MessageCrypto to the engine.
type engineDecryptor struct {
	reader crypto.KeyReader
	mc     crypto.MessageCrypto
}

func (d engineDecryptor) Decrypt(md *proto.MessageMetadata, payload []byte) ([]byte, error) {
	if d.reader == nil {
		return nil, errNoKeyReader
	}
	return d.mc.Decrypt(crypto.NewMessageMetadataSupplier(md), payload, d.reader)
}

// encryptionContext is the EncryptionContext of a message delivered still
// encrypted, nil for others.
func encryptionContext(m *consumer.Message) *EncryptionContext {
	if !m.Encrypted {
		return nil
	}
	md := m.Meta
	ctx := &EncryptionContext{
		Keys:             make(map[string]EncryptionKey, len(md.GetEncryptionKeys())),
		Param:            md.GetEncryptionParam(),
		Algorithm:        md.GetEncryptionAlgo(),
		CompressionType:  CompressionType(md.GetCompression()),
		UncompressedSize: int(md.GetUncompressedSize()),
		BatchSize:        int(md.GetNumMessagesInBatch()),
	}
	for _, k := range md.GetEncryptionKeys() {
		meta := make(map[string]string, len(k.GetMetadata()))
		for _, kv := range k.GetMetadata() {
			meta[kv.GetKey()] = kv.GetValue()
		}
		ctx.Keys[k.GetKey()] = EncryptionKey{KeyValue: k.GetValue(), Metadata: meta}
	}
	return ctx
}
