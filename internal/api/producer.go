package api

import "time"

// ProducerMessage is a message to send. Its fields mirror the official Go
// client's.
type ProducerMessage struct {
	// Payload is the message body.
	Payload []byte
	// Value is the message body before encoding, for producers with a
	// Schema: the producer encodes it with Schema, else with the producer's
	// schema. Value and Payload are mutually exclusive.
	Value any
	// Key is the partition key: it routes the message to a partition and,
	// without OrderingKey, to a Key_Shared consumer.
	Key string
	// OrderingKey, when set, overrides Key for Key_Shared routing and
	// key-based batching.
	OrderingKey string
	// Properties are application-defined headers.
	Properties map[string]string
	// EventTime is the application's time of the event. The zero time,
	// time.Unix(0, 0) (the official client's "none") and any earlier time
	// mean unset.
	EventTime time.Time
	// ReplicationClusters restricts geo-replication to these clusters.
	ReplicationClusters []string
	// DisableReplication keeps the message in the local cluster.
	DisableReplication bool
	// SequenceID, when set, overrides the producer's sequence id.
	SequenceID *int64
	// DeliverAfter asks the broker to deliver the message no earlier than
	// this long after sending (Shared and Key_Shared subscriptions).
	DeliverAfter time.Duration
	// DeliverAt asks the broker to deliver the message no earlier than this
	// time. DeliverAfter wins when both are set.
	DeliverAt time.Time
	// Schema, when set, encodes Value instead of the producer's schema: the
	// producer registers it (GET_OR_CREATE_SCHEMA) and tags the message
	// with its version, unless ProducerOptions.DisableMultiSchema refuses a
	// schema other than the producer's.
	Schema Schema
	// Transaction, when set, sends the message inside it: it is not
	// visible to consumers before the transaction commits, and never if it
	// aborts. Default nil: no transaction.
	Transaction Transaction
}

// ProducerStats are a producer's counters since it was created, summed over
// its partitions. Read them with Producer.Stats.
type ProducerStats struct {
	// MessagesSent counts messages the broker acknowledged.
	MessagesSent uint64
	// BytesSent counts their payload bytes, before compression.
	BytesSent uint64
	// ChunksSent counts acknowledged chunks of chunked messages.
	ChunksSent uint64
	// EntriesSent counts acknowledged entries: batches, messages sent alone
	// and chunked messages (one each).
	EntriesSent uint64
	// Errors counts messages that failed: send timeout, broker error,
	// producer closed, queue full, too large.
	Errors uint64
	// Reconnects counts re-attachments after the broker (unload) or the
	// connection dropped the producer.
	Reconnects uint64
	// PendingMessages is the number of messages accepted by Send or
	// SendAsync and not yet acknowledged or failed (a chunked message
	// counts once).
	PendingMessages int64
	// PendingBytes is the memory they hold against
	// ClientOptions.MemoryLimitBytes: compressed payloads and batches, the
	// chunks in flight of an uncompressed chunked message.
	PendingBytes int64
	// PendingChunks is the number of chunks of pending chunked messages
	// not yet acknowledged: with ChunksSent, the progress of a large Send
	// ("ChunksSent-before of ChunksSent-before+PendingChunks").
	PendingChunks int64
}
