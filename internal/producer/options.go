package producer

import (
	"context"
	"log/slog"
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/compress"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
)

// Defaults of Options.
const (
	DefaultSendTimeout        = 30 * time.Second
	DefaultMaxPendingMessages = 1000
	DefaultBatchMaxMessages   = 1000
	DefaultBatchMaxBytes      = 128 << 10
	DefaultBatchMaxDelay      = 10 * time.Millisecond
	DefaultOperationTimeout   = 30 * time.Second
)

// Memory is a byte budget shared by producers (the client's memory limit).
type Memory interface {
	// Reserve waits until n bytes fit, or fails with api.ErrMessageTooLarge
	// when n exceeds the whole limit, or with ctx's error.
	Reserve(ctx context.Context, n int64) error
	// TryReserve reserves n bytes if they fit now.
	TryReserve(n int64) bool
	// Add reserves n bytes whether or not they fit: for the few bytes a
	// compressed payload may exceed its original size by.
	Add(n int64)
	// Release returns n bytes.
	Release(n int64)
	// Limit returns the limit, <= 0 for none.
	Limit() int64
}

// Conn is what the engine needs of a broker connection; *conn.Conn has it.
type Conn interface {
	NewRequestID() uint64
	Request(ctx context.Context, requestID uint64, cmd *proto.BaseCommand) (*proto.BaseCommand, error)
	Send(cmd *proto.BaseCommand) error
	SendPayload(cmd *proto.BaseCommand, meta *proto.MessageMetadata, payload []byte) error
	RegisterProducer(id uint64, h conn.ProducerHandler) bool
	UnregisterProducer(id uint64)
	MaxMessageSize() int
	Close()
}

// Clock is the engine's time source: deadlines and timers. Tests inject a
// fake one.
type Clock = clock.Clock

// Options configure a Producer. Zero values take the documented defaults.
type Options struct {
	// Topic is the full name of the topic or partition. Required.
	Topic string
	// Partition is the partition index put in message ids, -1 for a topic
	// without partitions.
	Partition int32
	// ProducerID is the id unique within the client. Required.
	ProducerID uint64
	// Name is the producer name; empty lets the broker assign one.
	Name string
	// Properties are sent to the broker with the producer.
	Properties map[string]string
	// Connect returns the connection to the broker serving Topic (lookup
	// and pool). Required.
	Connect func(ctx context.Context) (Conn, error)
	// OperationTimeout bounds the creation of the producer on the broker
	// (with retries). Default 30 s.
	OperationTimeout time.Duration
	// SendTimeout fails a message not acknowledged this long after Send
	// was called (waiting for room included); a chunked message's runs
	// again from each chunk receipt. Default 30 s; negative disables it.
	SendTimeout time.Duration
	// MaxPendingMessages bounds messages accepted and not yet acknowledged
	// or failed; a chunked message counts once. Default 1000.
	MaxPendingMessages int
	// DisableBlockIfQueueFull fails Send with the QueueFull error instead of
	// waiting for room. Default false (wait).
	DisableBlockIfQueueFull bool
	// Buffers are the batch payload buffers this producer shares with the
	// other partitions of its topic; nil gives it its own.
	Buffers *Buffers
	// Memory is the byte budget; nil means no limit. A chunked message
	// that is not compressed holds it chunk by chunk while its chunks are
	// in flight (see sendFed); other entries hold their whole payload.
	Memory Memory
	// Compression is the codec applied to every payload (to the whole
	// message before chunking, to the whole batch). Default NONE.
	Compression compress.Type
	// DisableBatching sends every message as its own entry. Default false.
	DisableBatching bool
	// KeyBasedBatching keeps one batch per key (ordering key, else key).
	// Default false: one batch in send order.
	KeyBasedBatching bool
	// BatchMaxMessages bounds messages per batch. Default 1000.
	BatchMaxMessages int
	// BatchMaxBytes bounds the uncompressed bytes of a batch; larger
	// messages are sent on their own. Default 128 KiB.
	BatchMaxBytes int
	// BatchMaxDelay is how long a batch may wait for more messages.
	// Default 10 ms.
	BatchMaxDelay time.Duration
	// EnableChunking chunks messages larger than the broker's max message
	// size, or than ChunkMaxSize when that is set; without it such messages
	// fail with ErrMessageTooLarge. Default false.
	EnableChunking bool
	// ChunkMaxSize caps the payload of a chunk (with EnableChunking);
	// default and maximum: the broker's max message size less metadata.
	ChunkMaxSize int
	// Schema is the producer's schema, sent in PRODUCER; nil for none.
	Schema *proto.Schema
	// InitialSubscription, when set, asks the broker to create this
	// durable subscription on the topic with the producer (dead-letter
	// producers: PRODUCER's initial_subscription_name). Default none.
	InitialSubscription string
	// AccessMode is the access to the topic the producer asks for: Shared
	// (default), Exclusive (fails if another producer is attached) or
	// WaitForExclusive (creation waits, without a timeout, until it gets
	// exclusive access).
	AccessMode proto.ProducerAccessMode
	// Backoff, when set, makes the policy that spaces reconnection attempts
	// (one per attempt series). Default: 100 ms doubling up to 30 s.
	Backoff func() backoff.Policy
	// MaxReconnect, when set, bounds the attempts to re-attach after the
	// producer lost its broker: after that many failures it stops trying
	// (and its pending messages time out), as the official client's
	// MaxReconnectToBroker. Default nil: no bound.
	MaxReconnect *uint
	// Encryptor, when set, seals every frame's payload (end-to-end
	// encryption), after compression. Default nil: none.
	Encryptor Encryptor
	// Clock is the time source. Default: the real clock.
	Clock Clock
	// Logger receives the producer's logs. Default: discarded.
	Logger *slog.Logger
	// Metrics receives the producer's events (published, pending, errors,
	// latencies, reconnect failures). Default: none.
	Metrics api.Recorder
}

func (o Options) withDefaults() Options {
	if o.OperationTimeout <= 0 {
		o.OperationTimeout = DefaultOperationTimeout
	}
	if o.SendTimeout == 0 {
		o.SendTimeout = DefaultSendTimeout
	}
	if o.MaxPendingMessages <= 0 {
		o.MaxPendingMessages = DefaultMaxPendingMessages
	}
	if o.BatchMaxMessages <= 0 {
		o.BatchMaxMessages = DefaultBatchMaxMessages
	}
	if o.BatchMaxBytes <= 0 {
		o.BatchMaxBytes = DefaultBatchMaxBytes
	}
	if o.BatchMaxDelay <= 0 {
		o.BatchMaxDelay = DefaultBatchMaxDelay
	}
	if o.Memory == nil {
		o.Memory = noLimit{}
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// noLimit is the Memory of a producer without a memory limit.
type noLimit struct{}

func (noLimit) Reserve(context.Context, int64) error { return nil }
func (noLimit) TryReserve(int64) bool                { return true }
func (noLimit) Add(int64)                            {}
func (noLimit) Release(int64)                        {}
func (noLimit) Limit() int64                         { return 0 }
