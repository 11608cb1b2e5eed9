package ledger

// Entry is one stored entry of a topic: what a producer sent in one Send
// command (a single message, a batch, or one chunk), exactly as received.
// Meta and Payload are shared with the ledger and must not be modified.
type Entry struct {
	// Pos is where the entry is stored.
	Pos Position
	// Meta is the serialized MessageMetadata as received.
	Meta []byte
	// Payload is the payload as received (possibly compressed or batched).
	Payload []byte
	// PublishTime is the metadata's publish_time, in Unix milliseconds.
	PublishTime uint64
	// BrokerTimestamp is when the ledger stored the entry (Options.Now),
	// in Unix milliseconds.
	BrokerTimestamp uint64
	// NumMessages is the number of messages in the entry (1 unless batched).
	NumMessages int32
	// Sum is the checksum the entry arrived with, when HasSum (Bytes.Sum).
	// It is not stored: an entry read back from a store has none.
	Sum    uint32
	HasSum bool
}

// Bytes are an entry's bytes as an append is given them.
type Bytes struct {
	// Meta is the serialized MessageMetadata; Payload the payload.
	Meta, Payload []byte
	// Own says whether the ledger may keep Meta and Payload rather than
	// copy them; Copied by default.
	Own Ownership
	// Sum is, when HasSum, the CRC32C a frame carries for the entry (of
	// Meta's size as 4 bytes big-endian, Meta and Payload): the checksum
	// the SEND came with, which a MESSAGE repeats instead of computing it
	// again. Without it (the default) a MESSAGE's checksum is computed.
	Sum    uint32
	HasSum bool
}

// Ownership says whether an append may keep the bytes it is given.
type Ownership bool

const (
	// Copied: the caller may reuse meta and payload once the append
	// returns; the ledger keeps copies.
	Copied Ownership = false
	// Given: the caller gives meta and payload up for good (nothing writes
	// or reuses them again), so a payload of OwnBufferAt bytes or more is
	// kept instead of a copy; a smaller one is still copied into a slab,
	// and the metadata always is.
	Given Ownership = true
)
