package crypto

import (
	gproto "google.golang.org/protobuf/proto"

	"github.com/pulsargo/sdk/internal/proto"
)

// MessageMetadataSupplier is the part of a message's metadata that
// MessageCrypto reads and writes.
type MessageMetadataSupplier interface {
	// EncryptionKeys returns the wrapped data keys of the message.
	EncryptionKeys() []EncryptionKeyInfo
	// UpsertEncryptionKey adds a wrapped data key, or replaces the one of
	// the same name.
	UpsertEncryptionKey(EncryptionKeyInfo)
	// EncryptionParam returns the IV.
	EncryptionParam() []byte
	// SetEncryptionParam sets the IV.
	SetEncryptionParam([]byte)
}

// MessageMetadata is the MessageMetadataSupplier of a wire MessageMetadata.
type MessageMetadata struct {
	messageMetadata *proto.MessageMetadata
}

// NewMessageMetadataSupplier returns the MessageMetadataSupplier of md (nil
// md: reads return nothing, writes do nothing).
func NewMessageMetadataSupplier(md *proto.MessageMetadata) MessageMetadataSupplier {
	return &MessageMetadata{messageMetadata: md}
}

// EncryptionKeys returns the message's encryption_keys.
func (m *MessageMetadata) EncryptionKeys() []EncryptionKeyInfo {
	if m.messageMetadata == nil {
		return nil
	}
	out := make([]EncryptionKeyInfo, 0, len(m.messageMetadata.EncryptionKeys))
	for _, k := range m.messageMetadata.EncryptionKeys {
		out = append(out, EncryptionKeyInfo{name: k.GetKey(), key: k.GetValue(), metadata: metaMap(k.GetMetadata())})
	}
	return out
}

// UpsertEncryptionKey sets the encryption_keys entry of k's name.
func (m *MessageMetadata) UpsertEncryptionKey(k EncryptionKeyInfo) {
	if m.messageMetadata == nil {
		return
	}
	ek := &proto.EncryptionKeys{Key: gproto.String(k.name), Value: k.key, Metadata: metaList(k.metadata)}
	for i, old := range m.messageMetadata.EncryptionKeys {
		if old.GetKey() == k.name {
			m.messageMetadata.EncryptionKeys[i] = ek
			return
		}
	}
	m.messageMetadata.EncryptionKeys = append(m.messageMetadata.EncryptionKeys, ek)
}

// EncryptionParam returns the message's encryption_param.
func (m *MessageMetadata) EncryptionParam() []byte {
	if m.messageMetadata == nil {
		return nil
	}
	return m.messageMetadata.EncryptionParam
}

// SetEncryptionParam sets the message's encryption_param.
func (m *MessageMetadata) SetEncryptionParam(iv []byte) {
	if m.messageMetadata != nil {
		m.messageMetadata.EncryptionParam = iv
	}
}

func metaMap(kvs []*proto.KeyValue) map[string]string {
	if kvs == nil {
		return nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue()
	}
	return out
}

func metaList(m map[string]string) []*proto.KeyValue {
	if len(m) == 0 {
		return nil
	}
	out := make([]*proto.KeyValue, 0, len(m))
	for k, v := range m {
		out = append(out, &proto.KeyValue{Key: gproto.String(k), Value: gproto.String(v)})
	}
	return out
}
