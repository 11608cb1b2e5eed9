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
