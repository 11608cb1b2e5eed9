package pulsar

import (
	"context"
	"time"

	"github.com/pulsargo/sdk/pulsar/backoff"
)

// ReaderMessage is a message with the reader it came from, as the
// official client's (the element type of ReaderOptions.MessageChannel).
type ReaderMessage struct {
	Reader
	Message
}

// ReaderOptions configure a Reader. Field names follow the official Go
// client.
type ReaderOptions struct {
	// Topic to read. Required.
	Topic string
	// Name of the reader. Default: generated.
	Name string
	// Properties are the reader's metadata, sent in SUBSCRIBE (the broker
	// shows them in the topic's stats). Default none.
	Properties map[string]string
	// StartMessageID is where to start: EarliestMessageID(),
	// LatestMessageID() or an id — a chunk id stands for its whole message
	// (with StartMessageIDInclusive, the reader starts with all of it; the
	// official Go client starts at its last chunk). An id of another type
	// is read through its Serialize method. A reader of a partitioned topic
	// starts at EarliestMessageID or LatestMessageID; to start at an id,
	// read the id's partition (its topic name ends in "-partition-<i>").
	// Required.
	StartMessageID MessageID
	// StartMessageIDInclusive makes the reader start with the message
	// StartMessageID names (for LatestMessageID: the newest message); by
	// default (false) it starts after it. It applies to a chunk id too: a
	// reader started at a chunk id starts with that whole message or
	// after it. A Seek to a chunk id delivers its whole message next
	// either way; see Consumer.Seek for the table of every case.
	StartMessageIDInclusive bool
	// ReceiverQueueSize is the number of messages prefetched. Default 1000.
	ReceiverQueueSize int
	// Schema is the reader's schema, as ConsumerOptions.Schema. Default
	// nil.
	Schema Schema
	// SubscriptionName of the reader's non-durable subscription. Default
	// SubscriptionRolePrefix, a dash and a random suffix.
	SubscriptionName string
	// SubscriptionRolePrefix starts the generated subscription name when
	// SubscriptionName is empty. Default "reader".
	SubscriptionRolePrefix string
	// MessageChannel is accepted, as the official client's field, and not
	// used, as the official client does not use it either: messages are
	// read with Next. Default nil.
	MessageChannel chan ReaderMessage
	// ReadCompacted reads the compacted view.
	ReadCompacted bool
	// MaxPendingChunkedMessage, ExpireTimeOfIncompleteChunk and
	// IncompleteChunkPolicy are as in ConsumerOptions.
	MaxPendingChunkedMessage    int
	ExpireTimeOfIncompleteChunk time.Duration
	// MaxPendingChunkedBytes and StreamWindow are as in ConsumerOptions:
	// a chunked message larger than MaxPendingChunkedBytes (default
	// 256 MiB) is read with NextStream.
	MaxPendingChunkedBytes int64
	StreamWindow           int
	IncompleteChunkPolicy  ChunkPolicy
	// AutoAckIncompleteChunk is the official client's option: true sets
	// IncompleteChunkPolicy to ChunkAck (an incomplete chunked message that
	// is evicted or expires is skipped instead of read again). Default
	// false.
	AutoAckIncompleteChunk bool
	// BackoffPolicyFunc, when set, makes the policy that spaces the
	// reader's resubscription attempts (the official client spells it so
	// here, BackOff in the producer's and consumer's options). Default:
	// 100 ms doubling up to 60 s, with jitter.
	BackoffPolicyFunc func() backoff.Policy
	// Decryption decrypts end-to-end encrypted messages (see
	// MessageDecryptionInfo). Default nil: encrypted messages are not
	// delivered.
	Decryption *MessageDecryptionInfo
}

// Reader reads a topic from a position without a durable subscription.
type Reader interface {
	// Topic returns the topic.
	Topic() string
	// Next returns the next message. A chunked message larger than
	// MaxPendingChunkedBytes is not reassembled: Next gives it back with
	// an error wrapping ErrMessageTooLarge (it is read again after
	// NackRedeliveryDelay); read it with NextStream.
	Next(ctx context.Context) (Message, error)
	// NextStream returns the next message, of any size, as a
	// MessageStream: a chunked message larger than MaxPendingChunkedBytes
	// is read as its chunks arrive (see MessageStream). ctx bounds the wait
	// and the reading of the stream.
	NextStream(ctx context.Context) (*MessageStream, error)
	// HasNext reports whether a message is available now or on the broker;
	// it asks the broker, within the client's operation timeout. After
	// SeekByTime and until a message is read, the broker's last id does not
	// say whether a message is at or after the time: HasNext then takes the
	// subscription's mark-delete position from the broker's answer when
	// there is one, and otherwise waits until the entries through the last
	// id have arrived.
	HasNext() bool
	// Seek moves the reader to id: a chunk id delivers its whole message
	// next; a plain or batch-index id that message with
	// StartMessageIDInclusive, the one after it without (the table is at
	// Consumer.Seek). On a partitioned topic, the id's partition moves.
	Seek(MessageID) error
	// SeekByTime moves the reader to the first message at or after t.
	SeekByTime(t time.Time) error
	// GetLastMessageID returns the id of the topic's last message; on a
	// partitioned topic it fails (Result OperationNotSupported), as the
	// official client's.
	GetLastMessageID() (MessageID, error)
	// Close closes the reader.
	Close()
}

// CreateReader creates a reader. (Implemented in reader_impl.go.)
func (c *client) CreateReader(opts ReaderOptions) (Reader, error) {
	return c.createReader(opts)
}
