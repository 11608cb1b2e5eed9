package pulsar

import (
	"context"
	"io"
	"time"

	"github.com/pulsargo/sdk/pulsar/backoff"
)

// CompressionType selects the codec producers apply to payloads.
type CompressionType int

// Compression codecs, as Pulsar numbers them on the wire.
const (
	NoCompression CompressionType = iota
	LZ4
	ZLib
	ZSTD
	SNAPPY
)

// CompressionLevel trades speed for ratio where the codec supports it.
type CompressionLevel int

// Compression levels.
const (
	Default CompressionLevel = iota
	Faster
	Better
)

// BatcherBuilderType selects how a producer groups messages into batches.
type BatcherBuilderType int

// Batch builders.
const (
	// DefaultBatchBuilder batches messages in send order.
	DefaultBatchBuilder BatcherBuilderType = iota
	// KeyBasedBatchBuilder batches messages by key (ordering key, else
	// key), so that every batch holds one key: what Key_Shared needs.
	KeyBasedBatchBuilder
)

// HashingScheme picks the hash that routes keyed messages to partitions.
type HashingScheme int

// Hashing schemes.
const (
	// JavaStringHash is Java's String.hashCode, the official clients' default.
	JavaStringHash HashingScheme = iota
	// Murmur3_32Hash is Murmur3 32-bit.
	Murmur3_32Hash
)

// ProducerAccessMode is the access to the topic a producer asks for.
type ProducerAccessMode int

// Access modes, as the official client numbers them (and the wire).
const (
	// ProducerAccessModeShared lets several producers publish (default).
	ProducerAccessModeShared ProducerAccessMode = iota
	// ProducerAccessModeExclusive requires exclusive access: creation fails
	// with ProducerBusy if another producer is attached, and a producer that
	// loses its access is fenced (ErrProducerFenced).
	ProducerAccessModeExclusive
	// ProducerAccessModeWaitForExclusive waits, with no timeout, until the
	// producer gets exclusive access; creation returns then.
	ProducerAccessModeWaitForExclusive
)

// TopicMetadata describes a topic to a MessageRouter.
type TopicMetadata interface {
	// NumPartitions returns the number of partitions.
	NumPartitions() uint32
}

// ProducerOptions configure a Producer. Field names follow the official Go
// client; defaults are noted per field.
type ProducerOptions struct {
	// Topic to produce to. Required.
	Topic string
	// PartitionsAutoDiscoveryInterval is how often a producer on a
	// partitioned topic asks for its partition count
	// (PARTITIONED_METADATA) and starts producing to partitions added
	// since. Default 1 min, as the official client.
	PartitionsAutoDiscoveryInterval time.Duration
	// Name of the producer; the broker assigns one when empty.
	Name string
	// Properties are attached to the producer on the broker.
	Properties map[string]string
	// SendTimeout fails a message the broker has not acknowledged in this
	// long; for a chunked message it runs again from each chunk receipt, so
	// a message larger than memory is not failed for taking long, only
	// for a broker that stops answering. Default 30 s; negative disables
	// it.
	SendTimeout time.Duration
	// DisableBlockIfQueueFull makes Send fail with ErrProducerQueueFull
	// instead of waiting when MaxPendingMessages or the memory limit is
	// reached (for a chunked message: when its first chunk does not fit;
	// its later chunks wait for the receipts of the earlier ones, so a
	// message is not cut short once it started). Default false (wait).
	DisableBlockIfQueueFull bool
	// MaxPendingMessages bounds messages sent and not yet acknowledged. A
	// chunked message counts once. Default 1000.
	MaxPendingMessages int
	// HashingScheme routes keyed messages to partitions. Default
	// JavaStringHash.
	HashingScheme HashingScheme
	// CompressionType applies to every payload (for a chunked message, to
	// the whole payload before it is split). A compressed message is held
	// whole until its last chunk is acknowledged, so it counts whole
	// against ClientOptions.MemoryLimitBytes (its original size while it is
	// compressed, then its compressed size) and one larger than the limit
	// fails with ErrMessageTooLarge; without compression a chunked message
	// counts only its chunks in flight. Default NoCompression.
	CompressionType CompressionType
	// CompressionLevel for codecs that have levels. Default Default.
	// Accepted for compatibility; every codec currently uses its default
	// level.
	CompressionLevel CompressionLevel
	// MessageRouter picks a partition; default: by key hash, round robin
	// for messages without key.
	MessageRouter func(*ProducerMessage, TopicMetadata) int
	// DisableBatching sends each message on its own. Default false.
	DisableBatching bool
	// BatchingMaxPublishDelay bounds how long a batch waits. Default 10 ms.
	BatchingMaxPublishDelay time.Duration
	// BatchingMaxMessages bounds messages per batch. Default 1000.
	BatchingMaxMessages uint
	// BatchingMaxSize bounds bytes per batch. Default 128 KiB.
	BatchingMaxSize uint
	// BatcherBuilderType selects the batch builder. Default
	// DefaultBatchBuilder.
	BatcherBuilderType BatcherBuilderType
	// EnableChunking splits messages larger than the broker's max message
	// size, or than ChunkMaxMessageSize, into chunks. Without it such a
	// message fails with ErrMessageTooLarge, as in the official client.
	// Without compression, a chunked message counts against
	// ClientOptions.MemoryLimitBytes chunk by chunk, while its chunks are in
	// flight, so it may be larger than the limit: Send hands chunks to the
	// connection as receipts make room (SendAsync returns once the last
	// chunk is handed over; the producer's other sends wait until then, as
	// its messages are acknowledged in order). Unlike the official
	// clients, chunking
	// works together with batching: small messages are batched, large ones
	// chunked, in send order. Default false.
	EnableChunking bool
	// ChunkMaxMessageSize is the largest chunk payload when EnableChunking
	// is set; default and maximum the broker's max message size minus the
	// message's metadata.
	ChunkMaxMessageSize uint
	// Schema encodes ProducerMessage.Value and is registered with the
	// producer (PRODUCER); nil for none (payloads are bytes). A schema of
	// type NONE is sent as NewBytesSchema(nil). Default nil.
	Schema Schema
	// DisableMultiSchema refuses messages whose ProducerMessage.Schema is
	// not the producer's Schema; otherwise such messages register their
	// schema (GET_OR_CREATE_SCHEMA) and carry its version. Default false.
	DisableMultiSchema bool
	// Interceptors are called before each message is sent and when the
	// broker acknowledged it. Default none.
	Interceptors ProducerInterceptors

	// initialSubscriptionName asks the broker to create this durable
	// subscription with the topic (dead-letter producers), as the official
	// client's unexported option.
	initialSubscriptionName string
	// ProducerAccessMode is the access the producer asks for. Default
	// ProducerAccessModeShared.
	ProducerAccessMode
	// MaxReconnectToBroker bounds the attempts to reconnect a partition
	// that lost its broker; after that many failures it stops trying and
	// its messages time out. Default nil: no bound.
	MaxReconnectToBroker *uint
	// BackOffPolicyFunc, when set, makes the policy that spaces each
	// partition's reconnection attempts. Default: 100 ms doubling up to
	// 30 s, with jitter.
	BackOffPolicyFunc func() backoff.Policy
	// Encryption, when set with Keys, encrypts every message end to end
	// (see ProducerEncryptionInfo). Default nil: none.
	Encryption *ProducerEncryptionInfo
}

// Producer publishes messages to a topic. It is safe for concurrent use.
type Producer interface {
	// Topic returns the topic.
	Topic() string
	// Name returns the producer name.
	Name() string
	// Send publishes msg and waits for the broker's acknowledgment. For a
	// chunked message the id is a ChunkMessageID (first and last chunk).
	// It waits for room while MaxPendingMessages or the memory limit is
	// reached (unless DisableBlockIfQueueFull), at most until ctx ends or
	// SendTimeout passes. A batched message does not wait for
	// BatchingMaxPublishDelay: Send sends the batch it joined at once, as
	// the official client does. When ctx ends after the message was
	// queued, Send returns ctx's error and the message may still be
	// published.
	// msg.Payload is sent without a copy: do not modify it until Send
	// returns.
	Send(ctx context.Context, msg *ProducerMessage) (MessageID, error)
	// SendAsync publishes msg and calls callback once with the result. It
	// blocks only while waiting for room, as Send does (ctx bounds that
	// wait). Callbacks of one partition run in order on one goroutine; a
	// callback must not call Flush or Close. msg.Payload must not be
	// modified until the callback ran.
	SendAsync(ctx context.Context, msg *ProducerMessage, callback func(MessageID, *ProducerMessage, error))
	// SendReader publishes one message of size bytes read from r, and
	// waits for the broker's acknowledgment, as Send; msg gives everything
	// but the payload (msg.Payload and msg.Value must be nil). A message
	// larger than the broker's max message size is chunked
	// (EnableChunking must be set) and read one chunk at a time: a chunk is
	// read when its bytes fit in ClientOptions.MemoryLimitBytes (64 MiB
	// when the limit is off) and dropped at its receipt, so the producer
	// holds only the chunks in flight, never the whole payload; the id is
	// the same ChunkMessageID as Send's. A streamed message is not
	// compressed (chunks carry the total size, known only after
	// compressing all of it). r must yield exactly size bytes and is not
	// read beyond them. If r fails or ends early, the message fails with an
	// error that says how many chunks were sent and wraps r's error (or
	// io.ErrUnexpectedEOF); the chunks already stored form an incomplete
	// chunked message, which consumers never deliver (see
	// ConsumerOptions.IncompleteChunkPolicy). ctx does not interrupt a
	// read blocked in r.
	SendReader(ctx context.Context, msg *ProducerMessage, r io.Reader, size int64) (MessageID, error)
	// LastSequenceID returns the highest sequence id the broker
	// acknowledged (over all partitions), -1 before any.
	LastSequenceID() int64
	// Flush sends what is batched and waits for the acknowledgments; when
	// it returns, the callbacks of every message sent before it have run.
	Flush() error
	// FlushWithCtx is Flush bounded by ctx.
	FlushWithCtx(ctx context.Context) error
	// Close flushes (for at most SendTimeout) and closes the producer;
	// messages still pending then fail with ErrProducerClosed.
	Close()
	// Stats returns the producer's counters (messages, bytes and chunks
	// sent, pending messages and bytes, errors, reconnects), summed over
	// its partitions. The official client has no such method.
	Stats() ProducerStats
}

// CreateProducer creates a producer. (Implemented in producer_impl.go.)
func (c *client) CreateProducer(opts ProducerOptions) (Producer, error) {
	return c.createProducer(opts)
}
