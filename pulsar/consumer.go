package pulsar

import (
	"context"
	"time"

	"github.com/pulsargo/sdk/pulsar/backoff"
)

// SubscriptionType is how a subscription distributes messages.
type SubscriptionType int

// Subscription types, as Pulsar numbers them.
const (
	// Exclusive: one consumer.
	Exclusive SubscriptionType = iota
	// Shared: round robin over consumers.
	Shared
	// Failover: one active consumer, others on standby.
	Failover
	// KeyShared: messages of one key go to one consumer, in order.
	KeyShared
)

// SubscriptionInitialPosition is where a new subscription starts.
type SubscriptionInitialPosition int

// Initial positions.
const (
	// SubscriptionPositionLatest: after the newest message (default).
	SubscriptionPositionLatest SubscriptionInitialPosition = iota
	// SubscriptionPositionEarliest: at the oldest message.
	SubscriptionPositionEarliest
)

// SubscriptionMode says whether the broker keeps the subscription's
// position.
type SubscriptionMode int

// Subscription modes.
const (
	// Durable subscriptions survive consumers and broker restarts (default).
	Durable SubscriptionMode = iota
	// NonDurable subscriptions vanish with their last consumer.
	NonDurable
)

// KeySharedPolicyMode selects how Key_Shared hash ranges are assigned.
type KeySharedPolicyMode int

// Key_Shared modes.
const (
	// KeySharedPolicyModeAutoSplit: the broker splits the hash range.
	KeySharedPolicyModeAutoSplit KeySharedPolicyMode = iota
	// KeySharedPolicyModeSticky: the consumer names its ranges.
	KeySharedPolicyModeSticky
)

// KeySharedPolicy configures a Key_Shared consumer.
type KeySharedPolicy struct {
	// Mode of range assignment. Default auto split.
	Mode KeySharedPolicyMode
	// HashRanges are the consumer's ranges in sticky mode, as pairs
	// [start, end] within [0, 65535].
	HashRanges []int
	// AllowOutOfOrderDelivery relaxes per-key ordering when consumers
	// change, as Pulsar's allowOutOfOrderDelivery.
	AllowOutOfOrderDelivery bool
}

// ChunkPolicy says what happens to a chunked message the consumer gives up
// on (evicted by MaxPendingChunkedMessage or MaxPendingChunkedBytes, or
// expired after ExpireTimeOfIncompleteChunk). Default ChunkNack.
type ChunkPolicy int

// Chunk policies.
const (
	// ChunkNack asks the broker to redeliver its chunks (default): no data
	// is lost.
	ChunkNack ChunkPolicy = iota
	// ChunkAck acknowledges its chunks: the message is dropped, as the
	// official clients do silently.
	ChunkAck
)

// DLQPolicy moves messages redelivered too often to a dead-letter topic
// and, with ConsumerOptions.RetryEnable, names the retry letter topic.
type DLQPolicy struct {
	// MaxDeliveries is the number of deliveries before a message is moved
	// (with RetryEnable: the number of ReconsumeLater calls before it goes
	// to the dead-letter topic instead). Required (> 0); with RetryEnable
	// and no DLQPolicy it is MaxReconsumeTimes.
	MaxDeliveries uint32
	// DeadLetterTopic is the target; default "<topic>-<subscription>-DLQ"
	// (the topic without partition suffix).
	DeadLetterTopic string
	// DeadLetterTopicProducerName names the dead-letter producer; default
	// "<topic>-<subscription>-<consumer name>-<5 random letters>-DLQ", as
	// the official client.
	DeadLetterTopicProducerName string
	// ProducerOptions configure the dead-letter and retry letter producers
	// (Topic and Name are set by the consumer; CompressionType
	// NoCompression means LZ4, as the official client; chunking is always
	// on, so a message of any size can be moved).
	ProducerOptions ProducerOptions
	// RetryLetterTopic is where ReconsumeLater sends messages; default
	// "<topic>-<subscription>-RETRY" (RetryTopicSuffix).
	RetryLetterTopic string
	// InitialSubscriptionName, when set, is created on the dead-letter
	// topic together with its producer, so that nothing moved there is lost
	// before a consumer subscribes. Default none.
	InitialSubscriptionName string
}

// AckGroupingOptions control how acknowledgments are grouped before they
// are sent, as the official client's option of the same name.
type AckGroupingOptions struct {
	// MaxSize sends the group once this many acknowledgments are pending.
	// Default 1000.
	MaxSize uint32
	// MaxTime sends the group after this long. Default 100 ms. MaxTime 0
	// with MaxSize 0 or 1 sends every acknowledgment at once.
	MaxTime time.Duration
}

// ConsumerOptions configure a Consumer. Field names follow the official Go
// client; defaults are noted per field.
type ConsumerOptions struct {
	// Topic to consume; or Topics for several.
	Topic  string
	Topics []string
	// TopicsPattern, used when Topic and Topics are empty, subscribes to
	// every persistent topic of one namespace whose name matches: a Go
	// regexp such as "persistent://public/default/orders-.*" (the
	// namespace defaults to public/default), matched as the official Go
	// client matches it: from the namespace on, unanchored, against names
	// without their partition suffix. Topics created later are added and
	// topics deleted are dropped, on the broker's topic-list watch
	// notifications when it supports them (PIP-145), else every
	// AutoDiscoveryPeriod.
	TopicsPattern string
	// AutoDiscoveryPeriod is how often the consumer looks for new
	// partitions of its partitioned topics (PARTITIONED_METADATA) and, with
	// TopicsPattern and no topic-list watch, for new and deleted topics.
	// Default 1 min, as the official client.
	AutoDiscoveryPeriod time.Duration
	// SubscriptionName. Required.
	SubscriptionName string
	// Properties are attached to the consumer on the broker.
	Properties map[string]string
	// SubscriptionProperties are attached to a new subscription.
	SubscriptionProperties map[string]string
	// Type of subscription. Default Exclusive.
	Type SubscriptionType
	// SubscriptionInitialPosition of a new subscription. Default latest.
	SubscriptionInitialPosition
	// SubscriptionMode. Default Durable.
	SubscriptionMode SubscriptionMode
	// DLQ, when set, moves messages delivered MaxDeliveries times to a
	// dead-letter topic (large ones in chunks) and acknowledges them.
	DLQ *DLQPolicy
	// KeySharedPolicy for Key_Shared subscriptions.
	KeySharedPolicy *KeySharedPolicy
	// MessageChannel, when set, receives the messages instead of Chan().
	MessageChannel chan ConsumerMessage
	// ReceiverQueueSize is the number of messages prefetched per
	// partition. Default 1000.
	ReceiverQueueSize int
	// Schema is the consumer's schema: sent in SUBSCRIBE (the broker checks
	// it against the topic's) and used by Message.GetSchemaValue for
	// messages without a schema version. Default nil.
	Schema Schema
	// NackRedeliveryDelay is how long a nacked message waits before
	// redelivery. Default 1 min.
	NackRedeliveryDelay time.Duration
	// NackPrecisionBit is how many low bits of a nacked message's
	// redelivery time (Unix milliseconds) are cleared, as the official
	// client's nack tracker does: the nacks due in the same 2^bits ms
	// window are redelivered together, up to 2^bits ms before their delay
	// is over. Default (nil) 8, a 256 ms window; 0 keeps the exact time; a
	// negative value is refused with ErrInvalidOptions.
	NackPrecisionBit *int64
	// ReplicateSubscriptionState asks the broker to replicate the
	// subscription's state (its mark-delete position) to the other clusters
	// of a geo-replicated topic (SUBSCRIBE's replicate_subscription_state).
	// Default false.
	ReplicateSubscriptionState bool
	// AckTimeout redelivers messages not acknowledged in this long; 0
	// disables it (default).
	AckTimeout time.Duration
	// Name of the consumer. Default: generated.
	Name string
	// ReadCompacted reads the compacted view of the topic.
	ReadCompacted bool
	// AckWithResponse sends each ack at once and makes Ack wait for the
	// broker's receipt (and return its error).
	AckWithResponse bool
	// AckGroupingOptions group acks (when AckWithResponse is off); nil
	// selects the defaults: up to 1000 acks or 100 ms.
	AckGroupingOptions *AckGroupingOptions
	// EnableBatchIndexAcknowledgment acks single messages of a batch.
	EnableBatchIndexAcknowledgment bool
	// MaxPendingChunkedMessage bounds chunked messages being reassembled
	// per partition. Default 100.
	MaxPendingChunkedMessage int
	// MaxPendingChunkedBytes bounds the bytes of chunked messages being
	// reassembled per partition, and so the largest message reassembled in
	// memory. Default 256 MiB. A larger (uncompressed, unencrypted) chunked
	// message is streamed instead: ReceiveStream reads it as its chunks
	// arrive, and Receive gives it back with an error wrapping
	// ErrMessageTooLarge that names this option (it never reassembles it,
	// and never drops it silently). A larger compressed or encrypted one
	// cannot be streamed: it is logged (Error) and redelivered under
	// IncompleteChunkPolicy; raise this option for it. Chan delivers a
	// streamed message with a nil Payload: read it with MessageStreamOf.
	MaxPendingChunkedBytes int64
	// StreamWindow bounds the chunks a streamed message (see
	// MessageStream) holds: while a stream is open, the broker is given
	// permits only while the chunks held, read or not, plus the permits it
	// holds stay within it; the permits it was given before the stream
	// began (up to ReceiverQueueSize) it may still use, so set
	// ReceiverQueueSize to StreamWindow or less for that bound from the
	// first chunk. Default 8.
	StreamWindow int
	// ExpireTimeOfIncompleteChunk gives up on a chunked message whose
	// chunks stop arriving. Default 1 min.
	ExpireTimeOfIncompleteChunk time.Duration
	// AutoAckIncompleteChunk is the official client's option: true sets
	// IncompleteChunkPolicy to ChunkAck.
	AutoAckIncompleteChunk bool
	// IncompleteChunkPolicy decides the fate of evicted or expired chunked
	// messages. Default ChunkNack.
	IncompleteChunkPolicy ChunkPolicy
	// RetryEnable subscribes to the retry letter topic too and enables
	// ReconsumeLater; DLQ then defaults to MaxReconsumeTimes deliveries and
	// the "<topic>-<subscription>-RETRY" and "-DLQ" topics. Default false.
	RetryEnable bool
	// Interceptors see every message before it reaches the application,
	// every acknowledgment and every redelivery request of a nack. Default
	// none.
	Interceptors ConsumerInterceptors
	// EventListener is told when this consumer becomes the active one of a
	// Failover subscription, or stops being it. Default none.
	EventListener ConsumerEventListener
	// NackBackoffPolicy, when set, gives the delay of each Nack(msg) from
	// the message's redelivery count, instead of NackRedeliveryDelay (NackID
	// still uses NackRedeliveryDelay: an id carries no count). Default nil.
	NackBackoffPolicy NackBackoffPolicy
	// EnableDefaultNackBackoffPolicy uses the official client's default
	// NackBackoffPolicy (1 s doubling per redelivery, at most 10 min) when
	// NackBackoffPolicy is nil. Default false.
	EnableDefaultNackBackoffPolicy bool
	// EnableZeroQueueConsumer prefetches nothing: each Receive asks the
	// broker for one message. It needs one topic without partitions (or one
	// partition), no RetryEnable, and Receive (Chan panics, as in the
	// official client). Default false.
	EnableZeroQueueConsumer bool
	// EnableAutoScaledReceiverQueueSize starts the receiver queue at one
	// message and doubles it, up to ReceiverQueueSize, while the
	// application consumes faster than it refills. Default false.
	EnableAutoScaledReceiverQueueSize bool
	// MaxReconnectToBroker bounds the attempts to resubscribe after each
	// disconnection of a partition; after that many failures it stops
	// trying. Default nil: no bound.
	MaxReconnectToBroker *uint
	// BackOffPolicyFunc, when set, makes the policy that spaces each
	// partition's resubscription attempts. Default: 100 ms doubling up to
	// 60 s, with jitter.
	BackOffPolicyFunc func() backoff.Policy
	// StartMessageIDInclusive makes a Seek to a plain or batch-index id
	// deliver the message it names next; by default (false) Seek resumes
	// after it, as the official Go client's. A Seek to a chunk id delivers
	// its whole message next either way. See Consumer.Seek for the table.
	StartMessageIDInclusive bool
	// Decryption decrypts end-to-end encrypted messages (see
	// MessageDecryptionInfo). Default nil: encrypted messages are not
	// delivered (redelivered later).
	Decryption *MessageDecryptionInfo
}

// ConsumerMessage is a message with the consumer it came from, as sent on
// Chan().
type ConsumerMessage struct {
	Consumer
	Message
}

// Consumer receives messages of a subscription. It is safe for concurrent
// use.
type Consumer interface {
	// Subscription returns the subscription name.
	Subscription() string
	// Name returns the consumer name.
	Name() string
	// Unsubscribe deletes the subscription; the broker refuses it
	// (ConsumerBusy) while other consumers are attached to it.
	Unsubscribe() error
	// UnsubscribeForce deletes the subscription even while other consumers
	// are attached: the broker disconnects them.
	UnsubscribeForce() error
	// GetLastMessageIDs returns the id of the last message of every topic
	// (partition) the consumer reads, with the topic's name.
	GetLastMessageIDs() ([]TopicMessageID, error)
	// Receive returns the next message. A chunked message larger than
	// MaxPendingChunkedBytes is not reassembled: Receive gives it back
	// with an error wrapping ErrMessageTooLarge that says so (it is
	// delivered again after NackRedeliveryDelay); take it with
	// ReceiveStream.
	Receive(ctx context.Context) (Message, error)
	// ReceiveStream returns the next message, of any size, as a
	// MessageStream (an io.ReadCloser): a chunked message larger than
	// MaxPendingChunkedBytes is read as its chunks arrive, holding a few
	// of them (see MessageStream); any other is read from memory. ctx
	// bounds the wait and the reading of the stream. Acknowledge the
	// message after io.EOF.
	ReceiveStream(ctx context.Context) (*MessageStream, error)
	// Chan returns the channel messages arrive on.
	Chan() <-chan ConsumerMessage
	// Ack acknowledges a message (every chunk of a chunked message). A
	// message acknowledged already (also another copy of it, redelivered
	// after a Nack) or received before a Seek is not an error, as with the
	// official Go client: Ack (and AckID) acknowledge what the id names as
	// far as that touches no other message — a batch index the consumer no
	// longer tracks is sent only with EnableBatchIndexAcknowledgment, else
	// nothing is sent (where the official client would acknowledge the
	// whole batch) and an entry still unacknowledged comes back. Only an
	// id that names no message (a batch index past its batch size) is
	// refused, with ErrInvalidOptions.
	Ack(Message) error
	// AckID acknowledges by id, also a deserialized or producer-returned
	// chunk id: every chunk of the message is acknowledged. For a chunk id
	// this consumer did not deliver, other messages may lie between its
	// first and last chunk, so the consumer does not acknowledge that range
	// blindly: it remembers the id and acknowledges the message's chunks
	// when they arrive (they are unacknowledged, so the broker delivers
	// them), without delivering the message. On a consumer of several
	// topics an id carries no topic: it must name a message this consumer
	// delivered (on one topic only), else ErrInvalidOptions.
	AckID(MessageID) error
	// AckIDList acknowledges ids as AckID does, and returns an AckError
	// with the ids that failed (ids that name no partition or topic of this
	// consumer are skipped, as by the official client).
	AckIDList(ids []MessageID) error
	// AckCumulative acknowledges every message up to msg.
	AckCumulative(msg Message) error
	// AckWithTxn acknowledges msg inside a transaction: the ack takes
	// effect when the transaction commits (see transaction_ops.go).
	AckWithTxn(msg Message, txn Transaction) error
	// AckIDCumulative acknowledges every message up to id.
	AckIDCumulative(id MessageID) error
	// Nack asks for redelivery after NackRedeliveryDelay (or the
	// NackBackoffPolicy's delay for the message's redelivery count).
	Nack(Message)
	// NackID is Nack by id.
	NackID(MessageID)
	// Seek resets the subscription to id and drops what was queued; it
	// returns once the consumer receives from the new position. What comes
	// next depends on the kind of id and StartMessageIDInclusive (incl.);
	// Reader.Seek and a Reader's StartMessageID follow the same table:
	//
	//	id                 Consumer.Seek,        Reader StartMessageID
	//	                   Reader.Seek
	//	chunk id           that whole message    incl.: that whole message
	//	                   (incl. or not)        else:  the message after it
	//	plain id           incl.: that message   incl.: that message
	//	                   else:  the one after  else:  the one after
	//	batch-index id     incl.: that message   incl.: that message
	//	                   else:  the one after  else:  the one after
	//	EarliestMessageID  the oldest message    the oldest message
	//	LatestMessageID    the next published    incl.: the newest message
	//	                                         else:  the next published
	//
	// A chunk id is the id of a chunked message, whether Send returned it,
	// a Message had it or DeserializeMessageID restored it: Seek moves to
	// its first chunk and delivers that whole message next, whatever
	// StartMessageIDInclusive says (PIP-107; as the Java and official Go
	// clients). Plain and batch-index ids follow StartMessageIDInclusive,
	// as in the official Go client. An id of another type is read through
	// its Serialize method.
	//
	// On a partitioned topic the id's partition is moved; on several
	// topics, the topic that delivered the message (queued, unacknowledged
	// or among the last 1000 acknowledged per partition; an id that no
	// topic, or more than one, delivered is refused with ErrInvalidOptions);
	// EarliestMessageID and LatestMessageID move every partition. The
	// official Go client refuses both.
	Seek(MessageID) error
	// SeekByTime resets the subscription to the first message published at
	// or after t.
	SeekByTime(t time.Time) error
	// ReconsumeLater sends msg to the retry letter topic, to be delivered
	// again after delay, and acknowledges it; after DLQPolicy.MaxDeliveries
	// reconsumes it goes to the dead-letter topic. It needs RetryEnable
	// (without it, it does nothing but log, as the official client).
	ReconsumeLater(msg Message, delay time.Duration)
	// ReconsumeLaterWithCustomProperties is ReconsumeLater that adds
	// customProperties to the message's properties.
	ReconsumeLaterWithCustomProperties(msg Message, customProperties map[string]string, delay time.Duration)
	// Close closes the consumer.
	Close()
}

// Subscribe creates a consumer. (Implemented in consumer_impl.go.)
func (c *client) Subscribe(opts ConsumerOptions) (Consumer, error) {
	return c.subscribe(opts)
}
