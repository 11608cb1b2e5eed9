package pulsar

import (
	"time"

	"github.com/pulsargo/sdk/internal/api"
	"github.com/pulsargo/sdk/internal/consumer"
	"github.com/pulsargo/sdk/internal/producer"
)

// ProducerMessage is a message to send. Its fields mirror the official Go
// client's; every field is optional (the zero value sends an empty
// payload with no key and no properties).
type ProducerMessage struct {
	// Payload is the message body. Default nil: an empty body (or Value's
	// encoding).
	Payload []byte
	// Value is the message body before encoding, for producers with a
	// Schema: the producer encodes it with Schema, else with the producer's
	// schema. Value and Payload are mutually exclusive. Default nil.
	Value any
	// Key is the partition key: it routes the message to a partition and,
	// without OrderingKey, to a Key_Shared consumer. Default "": none (the
	// router picks a partition round robin).
	Key string
	// OrderingKey, when set, overrides Key for Key_Shared routing and
	// key-based batching. Default "": Key is used.
	OrderingKey string
	// Properties are application-defined headers. Default nil: none.
	Properties map[string]string
	// EventTime is the application's time of the event. The zero time,
	// time.Unix(0, 0) (the official client's "none") and any earlier time
	// mean unset (the default).
	EventTime time.Time
	// ReplicationClusters restricts geo-replication to these clusters.
	// Default nil: the namespace's clusters. A message with it is sent in
	// an entry of its own (not batched).
	ReplicationClusters []string
	// DisableReplication keeps the message in the local cluster. Default
	// false. A message with it is sent in an entry of its own.
	DisableReplication bool
	// SequenceID, when set, overrides the producer's sequence id. Default
	// nil: the producer's next.
	SequenceID *int64
	// DeliverAfter asks the broker to deliver the message no earlier than
	// this long after sending (Shared and Key_Shared subscriptions).
	// Default 0: at once.
	DeliverAfter time.Duration
	// DeliverAt asks the broker to deliver the message no earlier than this
	// time. DeliverAfter wins when both are set. Default zero: at once.
	DeliverAt time.Time
	// Schema, when set, encodes Value instead of the producer's schema: the
	// producer registers it (GET_OR_CREATE_SCHEMA) and tags the message
	// with its version, unless ProducerOptions.DisableMultiSchema refuses a
	// schema other than the producer's. Default nil: the producer's.
	Schema Schema
	// Transaction, when set, sends the message inside it: it is not
	// visible to consumers before the transaction commits, and never if it
	// aborts. Default nil: no transaction.
	Transaction Transaction
}

// engineMessage is what the producer engine sends of msg, with payload
// (msg.Payload, or its encoded Value). A value, not a pointer: the engine
// reads it during the send call only, so it stays on the caller's stack.
func engineMessage(msg *ProducerMessage, payload []byte) producer.Message {
	m := producer.Message{Payload: payload, Key: msg.Key, OrderingKey: msg.OrderingKey, Properties: msg.Properties,
		EventTime: msg.EventTime, ReplicationClusters: msg.ReplicationClusters, DisableReplication: msg.DisableReplication,
		SequenceID: msg.SequenceID, DeliverAfter: msg.DeliverAfter, DeliverAt: msg.DeliverAt}
	if msg.Transaction != nil {
		id := api.TxnID(msg.Transaction.GetTxnID())
		m.Txn = &id
	}
	return m
}

// Message is a received message.
type Message interface {
	// Topic returns the topic (the partition's name for partitioned topics).
	Topic() string
	// ProducerName returns the name of the producer that sent it.
	ProducerName() string
	// Properties returns the application headers.
	Properties() map[string]string
	// Payload returns the body (the whole reassembled body for a chunked
	// message).
	Payload() []byte
	// ID returns the message id; for a chunked message a ChunkMessageID.
	ID() MessageID
	// PublishTime returns when the producer published it (time.Unix(0, 0)
	// if the metadata lacks it).
	PublishTime() time.Time
	// EventTime returns the application's event time; time.Unix(0, 0) when
	// the message has none, as the official Go client (0 means none).
	EventTime() time.Time
	// Key returns the partition key.
	Key() string
	// OrderingKey returns the ordering key.
	OrderingKey() string
	// RedeliveryCount returns how often the broker redelivered it.
	RedeliveryCount() uint32
	// IsReplicated reports whether it came from another cluster.
	IsReplicated() bool
	// GetReplicatedFrom returns the cluster it was replicated from.
	GetReplicatedFrom() string
	// SchemaVersion returns the schema version it was produced with, nil
	// for none.
	SchemaVersion() []byte
	// GetSchemaValue decodes the payload into v (a pointer) with the schema
	// the message was written with: the schema of its SchemaVersion (asked
	// of the broker once per version, GET_SCHEMA), else the consumer's or
	// reader's Schema. A payload that does not decode, a version the broker
	// does not have and a message without any schema give a *SchemaError.
	GetSchemaValue(v any) error
	// Index returns the message's index in the topic from the broker entry
	// metadata (a broker with AppendIndexMetadataInterceptor and
	// exposingBrokerEntryMetadataToClientEnabled), nil when the broker
	// sends none. In a batch, each message has its own: the entry's index
	// is that of its last message.
	Index() *uint64
	// BrokerPublishTime returns when the broker stored the message, from
	// the broker entry metadata (appendBrokerTimestampMetadataInterceptor),
	// nil when the broker sends none.
	BrokerPublishTime() *time.Time
	// GetEncryptionContext returns, for a message delivered still
	// encrypted (ConsumerCryptoFailureActionConsume), how to decrypt it;
	// nil for any other message.
	GetEncryptionContext() *EncryptionContext
}

// message is the Message implementation: a view of the engine's message
// (nothing is copied but the properties, made once into a map).
type message struct {
	m          *consumer.Message
	properties map[string]string
	schemas    *consumerSchemas
	from       *consumerImpl   // the consumer that delivered it; nil from a reader
	engine     *consumerEngine // the engine of from that delivered it
}

func newMessage(m *consumer.Message, schemas *consumerSchemas) *message {
	return &message{m: m, properties: m.Properties(), schemas: schemas}
}

func (m *message) Topic() string                 { return m.m.Topic }
func (m *message) ProducerName() string          { return m.m.Meta.GetProducerName() }
func (m *message) Properties() map[string]string { return m.properties }
func (m *message) Payload() []byte               { return m.m.Payload }
func (m *message) ID() MessageID                 { return m.m.ID }
func (m *message) PublishTime() time.Time        { return fromMillis(m.m.Meta.GetPublishTime()) }
func (m *message) EventTime() time.Time          { return fromMillis(m.m.EventTimeMillis()) }
func (m *message) Key() string                   { return m.m.Key() }
func (m *message) OrderingKey() string           { return m.m.OrderingKey() }
func (m *message) RedeliveryCount() uint32       { return m.m.RedeliveryCount }
func (m *message) IsReplicated() bool            { return m.m.Meta.GetReplicatedFrom() != "" }
func (m *message) GetReplicatedFrom() string     { return m.m.Meta.GetReplicatedFrom() }
func (m *message) SchemaVersion() []byte         { return m.m.Meta.GetSchemaVersion() }
func (m *message) GetSchemaValue(v any) error {
	return m.schemas.decode(m.m.Topic, m.m.Meta.GetSchemaVersion(), m.m.Payload, v)
}

func (m *message) Index() *uint64 {
	bm := m.m.BrokerMeta
	if bm == nil || bm.Index == nil {
		return nil
	}
	idx := bm.GetIndex()
	if m.m.Single != nil {
		// The official client's arithmetic: the entry's index less the
		// messages after this one in the batch.
		idx = idx - uint64(m.m.Meta.GetNumMessagesInBatch()) + uint64(m.m.ID.BatchIdx()) + 1
	}
	return &idx
}

func (m *message) BrokerPublishTime() *time.Time {
	bm := m.m.BrokerMeta
	if bm == nil || bm.BrokerTimestamp == nil {
		return nil
	}
	t := time.UnixMilli(int64(bm.GetBrokerTimestamp()))
	return &t
}

// millis converts a time to Pulsar's milliseconds: 0 (none) for the zero
// time, time.Unix(0, 0) and earlier times.
func millis(t time.Time) uint64 {
	if t.IsZero() || t.UnixMilli() <= 0 {
		return 0
	}
	return uint64(t.UnixMilli())
}

// fromMillis converts Pulsar's milliseconds to a time; 0 (none) is
// time.Unix(0, 0), as the official Go client returns it.
func fromMillis(ms uint64) time.Time {
	return time.UnixMilli(int64(ms))
}

func (m *message) GetEncryptionContext() *EncryptionContext { return encryptionContext(m.m) }
