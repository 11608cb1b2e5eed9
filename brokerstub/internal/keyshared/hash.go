package keyshared

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/pulsargo/sdk/internal/proto"
)

// HashNotSet is the sticky key hash that means "no hash" (Pulsar's
// STICKY_KEY_HASH_NOT_SET). StickyKeyHash never returns it.
const HashNotSet int32 = 0

// RangeSize is the number of hash slots of the range-based selectors
// (Pulsar's DEFAULT_RANGE_SIZE, 2<<15).
const RangeSize = 65536

// noneKey is the sticky key of a message whose metadata names no key, no
// producer and no sequence id, as Pulsar's Commands.NONE_KEY.
const noneKey = "NONE_KEY"

// Range is an inclusive range of sticky key hashes [Start, End].
type Range struct {
	Start, End int32
}

// Size returns the number of hashes in r.
func (r Range) Size() int32 { return r.End - r.Start + 1 }

// Contains reports whether h is in r.
func (r Range) Contains(h int32) bool { return r.Start <= h && h <= r.End }

// String returns "[start, end]".
func (r Range) String() string {
	return "[" + strconv.Itoa(int(r.Start)) + ", " + strconv.Itoa(int(r.End)) + "]"
}

// Overlaps reports whether r and q share a hash.
func (r Range) Overlaps(q Range) bool { return max(r.Start, q.Start) <= min(r.End, q.End) }

// Murmur31 is the hash Pulsar derives everything else from: Murmur3_32 of
// the key with seed 0, masked to 31 bits (Murmur3_32Hash.makeHash).
func Murmur31(key []byte) uint32 { return Murmur3(key, 0) & 0x7fffffff }

// HashInRange maps a Murmur31 value into the key hash range r as Pulsar's
// StickyKeyConsumerSelectorUtils.makeStickyKeyHash does: m % size + start,
// with HashNotSet (0) moved to 1.
func HashInRange(m uint32, r Range) int32 {
	h := int32(m%uint32(r.Size())) + r.Start
	if h == HashNotSet {
		h = HashNotSet + 1
	}
	return h
}

// StickyKeyHash is HashInRange(Murmur31(key), r).
func StickyKeyHash(key []byte, r Range) int32 { return HashInRange(Murmur31(key), r) }

// StickyKey returns the key Key_Shared routes a message (or a whole batch,
// by its outer metadata) by, as Pulsar's Commands.resolveStickyKey: the
// ordering key when set (even if empty), else the partition key —
// base64-decoded when partition_key_b64_encoded is set, and "NONE_KEY" when
// that decoding fails, as Commands.peekStickyKey — else
// "<producer name>-<sequence id>", else "NONE_KEY".
func StickyKey(md *proto.MessageMetadata) []byte {
	switch {
	case md.OrderingKey != nil:
		return md.OrderingKey
	case md.PartitionKey != nil:
		if md.GetPartitionKeyB64Encoded() {
			if k, ok := decodeBase64(md.GetPartitionKey()); ok {
				return k
			}
			return []byte(noneKey)
		}
		return []byte(md.GetPartitionKey())
	case md.ProducerName != nil && md.SequenceId != nil:
		return []byte(md.GetProducerName() + "-" + strconv.FormatUint(md.GetSequenceId(), 10))
	}
	return []byte(noneKey)
}

// decodeBase64 decodes s as java.util.Base64.getDecoder() does: the basic
// alphabet, padding optional, no line breaks.
func decodeBase64(s string) ([]byte, bool) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	enc := base64.RawStdEncoding
	if strings.HasSuffix(s, "=") {
		enc = base64.StdEncoding
	}
	b, err := enc.DecodeString(s)
	return b, err == nil
}
