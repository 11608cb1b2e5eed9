package consumer

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/pulsargo/sdk/chunk"
	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/backoff"
	"github.com/pulsargo/sdk/internal/clock"
	"github.com/pulsargo/sdk/internal/conn"
	"github.com/pulsargo/sdk/internal/proto"
	"github.com/pulsargo/sdk/messageid"
)

// Defaults of Options.
const (
	// DefaultReceiverQueueSize is the default ReceiverQueueSize.
	DefaultReceiverQueueSize = 1000
	// DefaultNackDelay is the default NackDelay.
	DefaultNackDelay = time.Minute
	// DefaultAckGroupTime is the default AckGroupTime.
	DefaultAckGroupTime = 100 * time.Millisecond
	// DefaultAckGroupSize is the default AckGroupSize.
	DefaultAckGroupSize = 1000
	// DefaultOperationTimeout is the default OperationTimeout.
	DefaultOperationTimeout = 30 * time.Second
	// maxDeferredAcks bounds the chunk ids remembered for acknowledgment on
	// arrival; the oldest is forgotten (and logged) beyond it.
	maxDeferredAcks = 10000
)

// Clock is the engine's time source: nack delays, ack timeouts, ack
// grouping and chunk expiry. brokerstub.FakeClock implements it.
type Clock = clock.Clock

// Options configure an Engine. Zero fields take the documented defaults;
// Topic, Subscription, Connect, ConsumerID, Out and Wrap are required.
type Options[T any] struct {
	// Topic is the full name of the topic or partition.
	Topic string
	// Partition is the partition index put into message ids, -1 for a topic
	// without partitions.
	Partition int32
	// Subscription is the subscription name.
	Subscription string
	// SubType is the subscription type. Default Exclusive.
	SubType proto.CommandSubscribe_SubType
	// NonDurable makes the subscription non-durable (readers).
	NonDurable bool
	// InitialPosition of a new subscription. Default Latest.
	InitialPosition proto.CommandSubscribe_InitialPosition
	// Name is the consumer name sent to the broker.
	Name string
	// Properties are the consumer's metadata on the broker.
	Properties map[string]string
	// SubscriptionProperties are attached to a new subscription.
	SubscriptionProperties map[string]string
	// KeySharedMeta configures a Key_Shared consumer; nil means auto split.
	KeySharedMeta *proto.KeySharedMeta
	// ReadCompacted reads the compacted view.
	ReadCompacted bool
	// Schema is the consumer's schema, sent in SUBSCRIBE; nil for none.
	Schema *proto.Schema
	// NoTopicCreation subscribes with force_topic_creation=false: a topic
	// that was deleted is not created again by a resubscription (the
	// broker answers TopicNotFound, retried). Pattern consumers set it, as
	// the official client does. Default false.
	NoTopicCreation bool
	// ReceiverQueueSize is the number of messages prefetched. Default 1000.
	ReceiverQueueSize int
	// NackDelay is how long a negatively acknowledged message waits before
	// the broker is asked to redeliver it. Default 1 min.
	NackDelay time.Duration
	// NackPrecisionBit clears this many low bits of a nack's redelivery
	// time in Unix milliseconds, so that nacks due in the same 2^bits ms
	// window are asked for together (the official client's nack tracker).
	// Default 0: the exact time.
	NackPrecisionBit int64
	// ReplicateSubscriptionState is SUBSCRIBE's
	// replicate_subscription_state, sent always as the official client
	// does. Default false.
	ReplicateSubscriptionState bool
	// AckTimeout redelivers messages handed out and not acknowledged in
	// this long; 0 disables it (default).
	AckTimeout time.Duration
	// AckGroupTime is how long acknowledgments are grouped before they are
	// sent. Default 100 ms; negative sends each at once.
	AckGroupTime time.Duration
	// AckGroupSize sends grouped acknowledgments once this many are
	// pending. Default 1000.
	AckGroupSize int
	// AckWithResponse sends each acknowledgment at once with a request id
	// and makes Ack wait for the broker's receipt.
	AckWithResponse bool
	// BatchIndexAck acknowledges single messages of a batch with ack sets;
	// without it a batch entry is acknowledged once all its messages are.
	BatchIndexAck bool
	// Chunks are the limits of the chunk Assembler (its Now is replaced by
	// Clock.Now).
	Chunks chunk.Options
	// AckIncompleteChunks acknowledges the chunks of a chunked message
	// given up on (evicted or expired): it is dropped (pulsar.ChunkAck).
	// Default false: they are nacked, and the broker redelivers them
	// (pulsar.ChunkNack).
	AckIncompleteChunks bool
	// StartID, when set, is where a non-durable subscription starts (a
	// chunk id: at its whole message). Messages before it are filtered out.
	StartID messageid.MessageID
	// StartInclusive includes the message StartID names, and the message a
	// Seek to a plain or batch-index id names; a Seek to a chunk id always
	// includes its message (see Engine.Seek).
	StartInclusive bool
	// RecentIDs is the number of handed-out messages whose ids Knows
	// remembers after they are acknowledged (about 120 bytes each); 0
	// remembers none (default).
	RecentIDs int
	// Reader marks a reader: messages filtered out or found corrupt are
	// skipped without being acknowledged.
	Reader bool
	// MaxMessageSize bounds the uncompressed size of a message accepted
	// from metadata before anything is allocated. Default: the chunk
	// limits' MaxMessageSize (256 MiB by default).
	MaxMessageSize int
	// OperationTimeout bounds subscribe, seek and other requests made in
	// the background. Default 30 s.
	OperationTimeout time.Duration
	// Backoff bounds reconnect delays. Defaults: backoff's.
	BackoffInitial, BackoffMax time.Duration
	// Backoff, when set, makes the reconnect policy instead (the official
	// client's BackOffPolicyFunc). Default: backoff.New(BackoffInitial,
	// BackoffMax).
	Backoff func() backoff.Policy
	// MaxReconnect, when set, bounds the subscribe attempts after each
	// disconnection: after that many failures the engine stops trying (the
	// official client's MaxReconnectToBroker). Default nil: no bound.
	MaxReconnect *uint
	// Decryptor, when set, decrypts end-to-end encrypted entries. Default
	// nil: an encrypted entry goes to CryptoFailureAction.
	Decryptor Decryptor
	// CryptoFailureAction is what happens to an entry that cannot be
	// decrypted. Default CryptoFail.
	CryptoFailureAction CryptoAction
	// Clock is the time source. Default: the real clock.
	Clock Clock
	// Logger receives logs. Default: discarded.
	Logger *slog.Logger
	// Connect returns the connection to the broker serving Topic (after a
	// lookup). Required.
	Connect func(ctx context.Context) (*conn.Conn, error)
	// ConsumerID is the consumer id on the connection. Required.
	ConsumerID uint64
	// Out receives the messages, each converted by Wrap. Required.
	Out chan<- T
	// Wrap converts a message for Out. Required.
	Wrap func(*Message) T
	// Outbox, when set, is where the engine lends its queued messages to
	// receivers in batches, instead of handing each over Out (see Outbox);
	// once the outbox is closed, it delivers on Out. Default nil: Out.
	Outbox *Outbox[T]
	// ZeroQueue gives the broker one permit per waiting Receive (see
	// Engine.Want) instead of ReceiverQueueSize: nothing is prefetched.
	// Default false.
	ZeroQueue bool
	// AutoScaleQueue starts the receiver queue at one message and doubles
	// it, up to ReceiverQueueSize, while the application consumes faster
	// than the queue refills. Default false.
	AutoScaleQueue bool
	// ActiveChanged, when set, is told when the broker makes this consumer
	// the active one of a Failover subscription, or no longer. It runs on
	// the engine's goroutine and must not block.
	ActiveChanged func(active bool)
	// NackSent, when set, is told the entries of each redelivery request
	// sent for negatively acknowledged messages. It runs on the engine's
	// goroutine and must not block.
	NackSent func(ids []messageid.ID)
	// Divert, when set, is offered every message before it is queued; when
	// it returns true it has taken the message (for a dead-letter topic)
	// and is responsible for acknowledging it. It runs on the engine's
	// goroutine and must not block.
	Divert func(*Message) bool
	// Metrics receives the consumer's events (received, prefetched, acks,
	// nacks, dead letters, processing time, reconnect failures). Default:
	// none.
	Metrics api.Recorder
	// Memory is the consumer memory budget the engine counts its queued
	// bytes against (see Memory). Default nil: no budget.
	Memory *Memory
	// Receivers, when set, counts the receivers waiting for a message of
	// this engine (and of the others of one consumer, which share it): an
	// entry that does not fit Memory then stays compressed, even at the head
	// of an empty queue, until Receivers is positive; call Wake after
	// raising it. Default nil: an engine with an empty queue decompresses
	// its next entry whatever its size (for receivers the engine cannot
	// see, such as a channel the application reads).
	Receivers *atomic.Int64
	// Parked, when set, counts the engines (of one consumer, which share
	// it) that hold entries back compressed: Wake has nothing to do while
	// it is 0, so a consumer of a thousand partitions need not wake each
	// of them for every Receive that waits. Default nil.
	Parked *atomic.Int32
	// StreamAll streams every chunked message it can (see Stream) rather
	// than only those larger than Chunks.MaxPendingBytes. Default false.
	StreamAll bool
	// StreamWindow bounds the chunks of streamed messages held, read or
	// not, plus the permits the broker holds while a stream is open: no
	// FLOW is sent beyond it. Default DefaultStreamWindow.
	StreamWindow int
}

func (o Options[T]) withDefaults() Options[T] {
	if o.ReceiverQueueSize <= 0 {
		o.ReceiverQueueSize = DefaultReceiverQueueSize
	}
	if o.NackDelay <= 0 {
		o.NackDelay = DefaultNackDelay
	}
	if o.AckGroupTime == 0 {
		o.AckGroupTime = DefaultAckGroupTime
	}
	if o.AckGroupSize <= 0 {
		o.AckGroupSize = DefaultAckGroupSize
	}
	if o.OperationTimeout <= 0 {
		o.OperationTimeout = DefaultOperationTimeout
	}
	if o.BackoffInitial <= 0 {
		o.BackoffInitial = backoff.DefaultInitial
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = backoff.DefaultMax
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.StreamWindow <= 0 {
		o.StreamWindow = DefaultStreamWindow
	}
	o.Chunks.Now = o.Clock.Now
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = int(chunk.NewAssembler(o.Chunks).Options().MaxMessageSize)
	}
	return o
}

// newBackoff is the reconnect policy of o.
func newBackoff[T any](o Options[T]) backoff.Policy {
	if o.Backoff != nil {
		return o.Backoff()
	}
	return backoff.New(o.BackoffInitial, o.BackoffMax)
}
