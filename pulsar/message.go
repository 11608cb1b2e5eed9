package pulsar

import (
	"time"

	"github.com/pulsargo/sdk/internal/api"
)

// ProducerMessage is a message to send. Its fields mirror the official Go
// client's. (Defined in internal/api, which the producer engine shares: the
// engine takes the value as it is.)
type ProducerMessage = api.ProducerMessage

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
	// PublishTime returns when the producer published it.
	PublishTime() time.Time
	// EventTime returns the application's event time, or the zero time.
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
	// SchemaVersion returns the schema version it was produced with.
	SchemaVersion() []byte
}

// message is the Message implementation.
type message struct {
	topic           string
	producerName    string
	properties      map[string]string
	payload         []byte
	id              MessageID
	publishTime     time.Time
	eventTime       time.Time
	key             string
	orderingKey     string
	redeliveryCount uint32
	replicatedFrom  string
	schemaVersion   []byte
}

func (m *message) Topic() string                 { return m.topic }
func (m *message) ProducerName() string          { return m.producerName }
func (m *message) Properties() map[string]string { return m.properties }
func (m *message) Payload() []byte               { return m.payload }
func (m *message) ID() MessageID                 { return m.id }
func (m *message) PublishTime() time.Time        { return m.publishTime }
func (m *message) EventTime() time.Time          { return m.eventTime }
func (m *message) Key() string                   { return m.key }
func (m *message) OrderingKey() string           { return m.orderingKey }
func (m *message) RedeliveryCount() uint32       { return m.redeliveryCount }
func (m *message) IsReplicated() bool            { return m.replicatedFrom != "" }
func (m *message) GetReplicatedFrom() string     { return m.replicatedFrom }
func (m *message) SchemaVersion() []byte         { return m.schemaVersion }

// millis converts a time to Pulsar's milliseconds, 0 for the zero time.
func millis(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixMilli())
}

// fromMillis converts Pulsar's milliseconds to a time, the zero time for 0.
func fromMillis(ms uint64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms))
}
